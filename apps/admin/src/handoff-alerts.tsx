import { signal } from '@preact/signals';
import { type TAdminEventOf, ZInboxCounts } from '@service/contract';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from './api';
import { BellIcon } from './components/icons';
import { useLive } from './live';
import { inboxPath } from './paths';
import { can, session } from './session';

/**
 * Never miss a handoff: while the console is open (any page), a visitor asking for a human
 * brings a browser notification (once the user turned alerts on, from a click: browsers only
 * ask then; a denial is respected and said), a short beep (WebAudio, no file to load) and a
 * title badge "(N) …" with the conversations waiting that the user has not opened yet. Opening
 * one (the inbox marks it read) lowers N; none left clears the badge.
 */

const PREFERENCE_KEY = 'console.handoff-alerts';

/** Waiting conversations the user has not read: the title badge's N. */
export const waitingUnread = signal(0);
/** on: notify and beep; off: the user has not turned them on (or turned them off). */
const alertsOn = signal(readPreference());
const permission = signal<NotificationPermission | 'unsupported'>(notificationPermission());

let baseTitle: string | null = null;
let audio: AudioContext | null = null;

function readPreference(): boolean {
  try {
    return localStorage.getItem(PREFERENCE_KEY) === 'on';
  } catch {
    return false;
  }
}

function notificationPermission(): NotificationPermission | 'unsupported' {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

/** Reads the waiting-and-unread count again (after a read mark, or a live change). */
export async function refreshHandoffCount(): Promise<void> {
  if (!session.value || !can('workspace.read')) return;
  try {
    const counts = await api('/conversations/counts', ZInboxCounts);
    waitingUnread.value = counts.waiting.unread;
  } catch {
    // The badge keeps its last value; the next event or page reads it again.
  }
}

function showTitle(count: number): void {
  if (typeof document === 'undefined') return;
  const current = document.title.replace(/^\(\d+\) /, '');
  baseTitle = current;
  document.title = count > 0 ? `(${count}) ${baseTitle}` : baseTitle;
}

/** A short two-tone beep; silent where WebAudio is missing or not yet allowed. */
function beep(): void {
  try {
    audio ??= new AudioContext();
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.frequency.value = 880;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start();
    oscillator.stop(audio.currentTime + 0.25);
  } catch {
    // No sound is better than an error in the page.
  }
}

function notify(event: TAdminEventOf<'conversation.handoff_requested'>, open: (path: string) => void): void {
  if (permission.value !== 'granted') return;
  try {
    const note = new Notification('A visitor asks for a human', {
      body: event.preview ?? 'Open the inbox to answer.',
      tag: `handoff-${event.conversation_id}`,
    });
    note.onclick = () => {
      window.focus();
      open(inboxPath(event.conversation_id));
      note.close();
    };
  } catch {
    // Some browsers allow notifications only from a service worker: the badge and sound remain.
  }
}

/**
 * Mounted once in the shell: keeps the title badge current, alerts on handoffs, and shows the
 * alerts switch.
 */
export function HandoffAlerts() {
  const location = useLocation();
  const userKey = session.value ? `${session.value.user.id}:${session.value.workspace.id}` : '';
  useEffect(() => {
    void refreshHandoffCount();
  }, [userKey]);
  useEffect(() => showTitle(waitingUnread.value), [waitingUnread.value, location.path]);
  useLive(['conversation.handoff_requested', 'conversation.updated', 'stream.reset'], (event) => {
    void refreshHandoffCount();
    if (event.type !== 'conversation.handoff_requested' || !alertsOn.value) return;
    beep();
    notify(event, (path) => location.route(path));
  });
  return <AlertsSwitch where="topbar" />;
}

/**
 * The alerts switch: turning alerts on asks for notification permission from that click. The
 * shell shows it in the header; a phone's header has no room, so the inbox shows it there instead.
 */
export function AlertsSwitch(props: { where: 'topbar' | 'page' }) {
  if (!can('conversations.reply')) return null;
  const turnOn = async () => {
    // The AudioContext is made from this click, so the later beeps may play.
    try {
      audio ??= new AudioContext();
      void audio.resume();
    } catch {
      // Sound stays off where WebAudio is missing.
    }
    if (permission.value === 'default') {
      try {
        permission.value = await Notification.requestPermission();
      } catch {
        permission.value = notificationPermission();
      }
    }
    setPreference(true);
  };
  const isOn = alertsOn.value;
  const denied = permission.value === 'denied';
  const label = isOn
    ? denied
      ? 'Alerts on (sound and title; notifications blocked)'
      : 'Alerts on'
    : 'Turn on alerts';
  return (
    <button
      type="button"
      class={`button ghost alerts-toggle in-${props.where}${isOn ? ' on' : ''}`}
      aria-pressed={isOn}
      title={
        denied
          ? 'This browser blocks notifications for this site: change it in the site settings. Sound and the title badge still work.'
          : 'A notification and a short sound when a visitor asks for a human'
      }
      onClick={() => (isOn ? setPreference(false) : void turnOn())}
    >
      <BellIcon size={18} />
      <span>{label}</span>
      {waitingUnread.value > 0 ? (
        <span class="badge warn">
          {waitingUnread.value}
          <span class="sr-only"> waiting</span>
        </span>
      ) : null}
    </button>
  );
}

function setPreference(on: boolean): void {
  alertsOn.value = on;
  try {
    localStorage.setItem(PREFERENCE_KEY, on ? 'on' : 'off');
  } catch {
    // Private mode: the choice lasts for this page.
  }
}
