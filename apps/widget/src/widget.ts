// The widget controller: boots (init, locale, shell), applies the agent's theme and features,
// and wires the launcher, panel, menu, triggers and mobile viewport.
import { createApi } from './api.js';
import { createChat } from './chat.js';
import type { TCtx, TEventData } from './context.js';
import { on, safe } from './dom.js';
import { failureText, leadForm, satisfactionPrompt } from './forms.js';
import { loadLocale, localeHashes, pageLocale, resolveLocale, t } from './locale.js';
import { applyLook } from './look.js';
import { forgetAnonId, loadAnonId, writeConversationCookie } from './storage.js';
import { adoptStyles, CSS } from './styles.js';
import { registerTriggers } from './triggers.js';
import { isRecord, str, type TInit, type TInitRequest } from './types.js';
import { createView } from './view.js';

/** What the loader read from its script tag. */
export type TConfig = {
  base: string;
  agentId: string;
  dataLocale: string;
  shopperToken: string;
  /** The console's preview page (preview.ts): no widget route is called. */
  preview?: boolean;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Boots the widget into a shadow root; resolves when the launcher is shown (or removed). */
export async function startWidget(shadow: ShadowRoot, config: TConfig, remove: () => void): Promise<void> {
  const doc = document;
  const win = window;
  const root = doc.createElement('div');
  root.className = 'r off';
  shadow.append(root);
  adoptStyles(shadow, CSS);

  // Null after "forget me": a new id is made (and stored) only when the next init needs one.
  let anonId: string | null = loadAnonId();
  const currentAnonId = (): string => {
    anonId ??= loadAnonId();
    return anonId;
  };
  // Filled by the first successful init (which may come late, after a network failure).
  const state: {
    agent: TInit['agent'] | null;
    history: TInit['messages'];
    status: string;
    started: boolean;
  } = {
    agent: null,
    history: [],
    status: 'open',
    started: false,
  };
  const hashes = localeHashes();
  const available = ['en', ...Object.keys(hashes)];
  const sources = {
    dataLocale: config.dataLocale,
    htmlLang: doc.documentElement.lang,
    languages: navigator.languages,
  };
  const declared = pageLocale(sources);
  const fetchLocale = (url: string) => fetch(url, { credentials: 'omit' });

  const api = createApi({
    base: config.base,
    fetch: (url, init) => fetch(url, init),
    initBody: () => {
      const body: TInitRequest = {
        agent_id: config.agentId,
        anon_id: currentAnonId(),
        page_url: location.href.slice(0, 2048),
        page_title: doc.title.slice(0, 500),
        referrer: doc.referrer.slice(0, 2048),
      };
      if (declared) body.locale = declared.slice(0, 35);
      if (config.shopperToken) body.shopper_token = config.shopperToken.slice(0, 2048);
      return body;
    },
    onInit: (data) => {
      writeConversationCookie(doc, data.conversation_id);
      if (state.agent) return;
      state.agent = data.agent;
      state.history = data.messages;
      state.status = data.conversation_status;
      if (state.started) applyAgent();
    },
  });

  // A page-declared language does not depend on the agent: fetch it while init runs.
  const early = declared ? resolveLocale(sources, available) : null;
  const earlyLoad = early ? loadLocale(config.base, early.tag, hashes, fetchLocale) : null;
  const first = await api.init();
  // A refusal (unknown or unpublished agent, forbidden origin) hides the widget; a network
  // failure or a limit keeps the launcher, and the next message tries init again.
  if (!first.ok && first.status >= 400 && first.status < 500 && first.status !== 429) return remove();
  const locale =
    early ?? resolveLocale({ ...sources, agentDefault: state.agent?.language_default }, available);
  await Promise.race([earlyLoad ?? loadLocale(config.base, locale.tag, hashes, fetchLocale), sleep(3000)]);
  root.lang = locale.tag;
  root.dir = locale.rtl ? 'rtl' : 'ltr';

  const view = createView(doc, root);
  let open = false;
  let asked = false;
  let stopTriggers = () => {};
  const ctx: TCtx = {
    doc,
    api,
    features: { coupons: false, leads: false, human: false, satisfaction: false },
    lang: locale.tag,
    send: (text) => safe(chat.send)(text),
    event: (kind, data: TEventData = {}) => safe(api.call)('POST', '/v1/widget/events', { kind, data }),
    requestHuman: () => safe(requestHuman)(),
    notice: view.notice,
    scroll: () => {
      view.log.scrollTop = view.log.scrollHeight;
    },
  };
  const chat = createChat(ctx, view, () => open);

  function setOpen(next: boolean, focus = true): void {
    if (open === next) return;
    open = next;
    view.panel.hidden = !open;
    view.bubble.hidden = true;
    view.menu.hidden = true;
    root.classList.toggle('open', open);
    view.launcher.setAttribute('aria-expanded', String(open));
    ctx.event(open ? 'widget_opened' : 'widget_closed');
    if (open) {
      fitViewport();
      ctx.scroll();
      chat.schedulePoll();
      if (focus) view.input.focus();
      return;
    }
    chat.stopPolling();
    chat.stopTyping();
    if (focus) view.launcher.focus();
    if (ctx.features.satisfaction && chat.hasAnswered() && !asked) askRating();
  }

  function askRating(): void {
    asked = true;
    view.append(satisfactionPrompt(ctx));
  }

  async function requestHuman(): Promise<void> {
    const result = await api.call('POST', '/v1/widget/request-human');
    if (!result.ok) return view.notice(failureText(result));
    // Told honestly: nobody online means leaving an email (the lead form) instead of waiting.
    const online = !isRecord(result.data) || result.data.operators_online !== false;
    view.notice(t(online ? 'humanWaiting' : 'humanOffline'));
    chat.setStatus(str(result.data, 'status') || 'waiting');
    if (ctx.features.leads) view.append(leadForm(ctx));
  }

  async function clearConversation(): Promise<void> {
    const result = await api.call('POST', '/v1/widget/conversation/clear');
    if (!result.ok || !isRecord(result.data)) return view.notice(failureText(result));
    api.setToken(str(result.data, 'token'));
    writeConversationCookie(doc, str(result.data, 'conversation_id'));
    chat.reset();
    asked = false;
    view.input.focus();
  }

  async function forgetMe(): Promise<void> {
    const result = await api.call('DELETE', '/v1/widget/me');
    if (!result.ok) return view.notice(failureText(result));
    forgetAnonId();
    writeConversationCookie(doc, '');
    anonId = null;
    api.reset();
    chat.reset();
    view.notice(t('forgotten'));
  }

  function applyAgent(): void {
    const agent = state.agent;
    if (!agent) return;
    const { features } = agent;
    applyLook(root, view, agent.name, agent.theme);
    ctx.features = { ...features };
    const item = (text: string, testid: string, action: () => unknown) =>
      on(view.addMenuItem(text, testid), 'click', () => {
        view.menu.hidden = true;
        view.menuButton.setAttribute('aria-expanded', 'false');
        return action();
      });
    if (features.leads) item(t('leadTitle'), 'menu-lead', () => view.append(leadForm(ctx)));
    if (features.human) item(t('human'), 'menu-human', requestHuman);
    if (features.satisfaction) item(t('rate'), 'menu-rate', askRating);
    item(t('forget'), 'menu-forget', forgetMe);
    for (const message of state.history) chat.render(message);
    chat.welcome(agent.welcome);
    chat.setStatus(state.status);
    stopTriggers();
    stopTriggers = registerTriggers(win, agent.behavior_rules, (rule) => {
      ctx.event('trigger_fired', { trigger: rule.trigger });
      if (rule.action === 'open') setOpen(true, false);
      else if (rule.message && !open) {
        view.bubbleText.textContent = rule.message;
        view.bubble.hidden = false;
      }
    });
  }

  /** Below 480 px the panel is full screen: follow the visual viewport so the keyboard never covers the input. */
  function fitViewport(): void {
    const viewport = win.visualViewport;
    if (!viewport || !open) return;
    root.style.setProperty('--vh', `${viewport.height}px`);
    root.style.setProperty('--vt', `${viewport.offsetTop}px`);
  }

  on(view.launcher, 'click', () => setOpen(!open));
  on(view.closeButton, 'click', () => setOpen(false));
  on(view.clearButton, 'click', clearConversation);
  on(view.menuButton, 'click', () => {
    view.menu.hidden = !view.menu.hidden;
    view.menuButton.setAttribute('aria-expanded', String(!view.menu.hidden));
  });
  on(view.bubbleText, 'click', () => setOpen(true));
  on(view.bubbleClose, 'click', () => {
    view.bubble.hidden = true;
  });
  on(view.sendButton, 'click', () => {
    const text = view.input.value;
    view.input.value = '';
    return chat.send(text);
  });
  on(view.input, 'input', chat.noteTyping);
  on(view.input, 'keydown', (event) => {
    if (!('key' in event) || event.key !== 'Enter' || ('shiftKey' in event && event.shiftKey)) return;
    if ('isComposing' in event && event.isComposing) return;
    event.preventDefault();
    view.sendButton.click();
  });
  on(root, 'keydown', (event) => {
    if (!('key' in event) || event.key !== 'Escape') return;
    if (!view.menu.hidden) {
      view.menu.hidden = true;
      view.menuButton.focus();
    } else setOpen(false);
  });
  if (win.visualViewport) {
    on(win.visualViewport, 'resize', fitViewport, true);
    on(win.visualViewport, 'scroll', fitViewport, true);
  }

  state.started = true;
  applyAgent();
  root.classList.remove('off');
}
