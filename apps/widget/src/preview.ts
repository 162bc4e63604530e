// Preview mode: the console's agent settings frame a page of the service that loads this bundle
// with `data-preview`. Nothing here calls the service's widget routes (no init, no token, no
// visitor, no conversation): the agent's look comes from the framing console by postMessage,
// accepted only from the parent window on the service's own origin, and follows every unsaved
// edit. The shell, stylesheet and theme code are the live widget's own; sending is off.
import { on } from './dom.js';
import { loadLocale, localeHashes, resolveLocale, t } from './locale.js';
import { applyLook } from './look.js';
import { adoptStyles, CSS } from './styles.js';
import { isRecord, type TTheme } from './types.js';
import { createView, type TView } from './view.js';

/** The preview tells its parent it runs (the parent answers with the look). */
export const PREVIEW_READY = 'service-widget-preview:ready';
/** The parent sends the agent's (unsaved) look. */
export const PREVIEW_AGENT = 'service-widget-preview:agent';

/** What one preview message carries, checked. */
export type TPreview = {
  name: string;
  languageDefault: string | null;
  theme: TTheme;
  features: { leads: boolean; human: boolean; satisfaction: boolean };
  /** Example messages shown in the panel, so the colours can be judged on them. */
  samples: Array<{ role: 'assistant' | 'visitor' | 'operator'; text: string }>;
  /** The disabled composer's placeholder (why nothing can be sent here). */
  note: string;
};

const ROLES = ['assistant', 'visitor', 'operator'] as const;
const text = (value: unknown, max: number): string => (typeof value === 'string' ? value.slice(0, max) : '');

/** The preview a message asks for, or null when it is not a well-formed preview message. */
export function previewOf(data: unknown): TPreview | null {
  if (!isRecord(data) || data.type !== PREVIEW_AGENT || !isRecord(data.agent)) return null;
  const { agent } = data;
  const theme = agent.theme;
  const features = isRecord(agent.features) ? agent.features : {};
  if (!isRecord(theme) || typeof theme.radius !== 'number') return null;
  const samples: TPreview['samples'] = [];
  for (const sample of Array.isArray(data.samples) ? data.samples.slice(0, 10) : []) {
    const role = ROLES.find((known) => isRecord(sample) && sample.role === known);
    if (role && isRecord(sample)) samples.push({ role, text: text(sample.text, 500) });
  }
  return {
    name: text(agent.name, 120),
    languageDefault: typeof agent.language_default === 'string' ? agent.language_default : null,
    theme: {
      position: text(theme.position, 20),
      primary: text(theme.primary, 7),
      accent: text(theme.accent, 7),
      radius: theme.radius,
      launcher_label: text(theme.launcher_label, 40),
    },
    features: {
      leads: features.leads === true,
      human: features.human === true,
      satisfaction: features.satisfaction === true,
    },
    samples,
    note: text(data.note, 200),
  };
}

/** Starts the preview in `shadow`, if framed; `base` is the service's origin (the page's own). */
export function startPreview(shadow: ShadowRoot, base: string): void {
  const win = window;
  const doc = document;
  const parent = win.parent;
  if (parent === win) return;
  const root = doc.createElement('div');
  root.className = 'r off';
  shadow.append(root);
  adoptStyles(shadow, CSS);
  const hashes = localeHashes();
  const available = ['en', ...Object.keys(hashes)];
  let latest: TPreview | null = null;
  let shown: { view: TView; tag: string } | null = null;
  let loading = '';

  function render(): void {
    if (!latest || !shown) return;
    const { view } = shown;
    applyLook(root, view, latest.name, latest.theme);
    view.menu.replaceChildren();
    if (latest.features.leads) view.addMenuItem(t('leadTitle'), 'menu-lead');
    if (latest.features.human) view.addMenuItem(t('human'), 'menu-human');
    if (latest.features.satisfaction) view.addMenuItem(t('rate'), 'menu-rate');
    view.addMenuItem(t('forget'), 'menu-forget');
    view.log.replaceChildren();
    for (const sample of latest.samples) view.message(sample.role).append(sample.text);
    view.input.placeholder = latest.note || t('placeholder');
  }

  function build(tag: string, rtl: boolean): void {
    root.replaceChildren();
    root.lang = tag;
    root.dir = rtl ? 'rtl' : 'ltr';
    const view = createView(doc, root);
    let open = false;
    const setOpen = (next: boolean) => {
      open = next;
      view.panel.hidden = !open;
      view.menu.hidden = true;
      root.classList.toggle('open', open);
      view.launcher.setAttribute('aria-expanded', String(open));
      (open ? view.closeButton : view.launcher).focus();
    };
    const toggleMenu = (hidden: boolean) => {
      view.menu.hidden = hidden;
      view.menuButton.setAttribute('aria-expanded', String(!hidden));
    };
    on(view.launcher, 'click', () => setOpen(!open));
    on(view.closeButton, 'click', () => setOpen(false));
    on(view.menuButton, 'click', () => toggleMenu(!view.menu.hidden));
    on(view.menu, 'click', () => toggleMenu(true));
    on(root, 'keydown', (event) => {
      if (!('key' in event) || event.key !== 'Escape') return;
      if (!view.menu.hidden) {
        toggleMenu(true);
        view.menuButton.focus();
      } else if (open) setOpen(false);
    });
    view.input.disabled = true;
    view.sendButton.disabled = true;
    view.clearButton.disabled = true;
    shown = { view, tag };
    root.classList.remove('off');
  }

  on(win, 'message', (event) => {
    if (!(event instanceof MessageEvent) || event.source !== parent || event.origin !== base) return;
    const next = previewOf(event.data);
    if (!next) return;
    latest = next;
    const locale = resolveLocale(
      { agentDefault: next.languageDefault, languages: navigator.languages },
      available,
    );
    if (shown?.tag === locale.tag && !loading) return render();
    if (loading === locale.tag) return;
    loading = locale.tag;
    return loadLocale(base, locale.tag, hashes, (url) => fetch(url, { credentials: 'omit' })).then(() => {
      // A later message asked for another language meanwhile: that load builds the view.
      if (loading !== locale.tag) return;
      loading = '';
      build(locale.tag, locale.rtl);
      render();
    });
  });
  parent.postMessage({ type: PREVIEW_READY }, base);
}
