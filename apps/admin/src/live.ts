import { effect, signal } from '@preact/signals';
import { ADMIN_EVENT_TYPES, type TAdminEvent, type TAdminEventType, ZAdminEvent } from '@service/contract';
import { useEffect, useRef } from 'preact/hooks';
import { API_BASE } from './api';
import { session } from './session';

/**
 * The console's one live connection: the admin event stream (`GET /api/v1/admin/stream`), opened
 * while signed in and reopened when the user or workspace changes. Screens subscribe with
 * {@link useLive}; nothing in the console polls.
 */

/** off: signed out; connecting: first open or reconnecting; open: events arrive. */
export type LiveState = 'off' | 'connecting' | 'open';
export const liveState = signal<LiveState>('off');
/** Operators of the workspace with a stream open (from `stream.ready`); null before the first. */
export const operatorsOnline = signal<number | null>(null);

type Listener = (event: TAdminEvent) => void;
const listeners = new Set<Listener>();

/** Longest wait between reopen attempts after the stream failed, in milliseconds. */
const RETRY_MAX_MS = 30_000;

let source: EventSource | null = null;
/** Whose stream is open: `user:workspace`, or null when signed out. */
let openFor: string | null = null;
let lastEventId: string | null = null;
/**
 * Ids of the stored events already handed to the listeners, the latest {@link SEEN_KEPT}: a
 * resumed stream may send again the events of the seconds before the id it resumes from (late
 * commits), and a handoff must not ring twice.
 */
const seen = new Set<string>();
const SEEN_KEPT = 1000;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let retryMs = 1_000;

function streamUrl(): string {
  // A reopened EventSource does not send Last-Event-ID itself; the query carries it instead.
  return lastEventId === null
    ? `${API_BASE}/stream`
    : `${API_BASE}/stream?last_event_id=${encodeURIComponent(lastEventId)}`;
}

function dispatch(raw: MessageEvent<string>): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.data);
  } catch {
    return;
  }
  const result = ZAdminEvent.safeParse(parsed);
  if (!result.success) return;
  const event = result.data;
  if (event.id !== null) {
    if (seen.has(event.id)) return;
    seen.add(event.id);
    if (seen.size > SEEN_KEPT) seen.delete(seen.values().next().value ?? '');
    // Ids follow insert order, not commit order: resume from the highest one seen.
    if (lastEventId === null || BigInt(event.id) > BigInt(lastEventId)) lastEventId = event.id;
  }
  if (event.type === 'stream.ready') operatorsOnline.value = event.operators_online;
  for (const listener of [...listeners]) {
    try {
      listener(event);
    } catch (error) {
      console.error(error);
    }
  }
}

function open(): void {
  liveState.value = 'connecting';
  const next = new EventSource(streamUrl(), { withCredentials: true });
  source = next;
  next.onopen = () => {
    liveState.value = 'open';
    retryMs = 1_000;
  };
  next.onerror = () => {
    if (source !== next) return;
    // CONNECTING: the browser reconnects itself (sending Last-Event-ID). CLOSED: the answer was
    // not a stream (a 401 after the session ended, a 5xx): try again later, at growing intervals.
    if (next.readyState === EventSource.CLOSED) {
      liveState.value = 'connecting';
      source = null;
      retryTimer = setTimeout(() => {
        if (openFor !== null && source === null) open();
      }, retryMs);
      retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
    } else {
      liveState.value = 'connecting';
    }
  };
  for (const type of ADMIN_EVENT_TYPES) next.addEventListener(type, dispatch as EventListener);
}

function close(): void {
  clearTimeout(retryTimer);
  source?.close();
  source = null;
  lastEventId = null;
  seen.clear();
  retryMs = 1_000;
  operatorsOnline.value = null;
  liveState.value = 'off';
}

effect(() => {
  const current = session.value;
  const key = current ? `${current.user.id}:${current.workspace.id}` : null;
  if (key === openFor) return;
  close();
  openFor = key;
  if (key !== null && typeof EventSource !== 'undefined') open();
});

/** Calls `listener` for every event (of `types`, when given) until the returned function is called. */
export function subscribeLive(listener: Listener, types?: readonly TAdminEventType[]): () => void {
  const wanted = types ? new Set<TAdminEventType>(types) : null;
  const filtered: Listener = wanted ? (event) => wanted.has(event.type) && listener(event) : listener;
  listeners.add(filtered);
  return () => listeners.delete(filtered);
}

/**
 * Calls `handler` for every live event of `types` while the component is mounted. The handler
 * may change between renders; the latest one is called.
 */
export function useLive(types: readonly TAdminEventType[], handler: Listener): void {
  const latest = useRef(handler);
  latest.current = handler;
  const key = types.join(',');
  useEffect(() => subscribeLive((event) => latest.current(event), types), [key]);
}
