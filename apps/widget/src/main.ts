// The loader: finds its own <script>, takes the service origin from the script's URL (never
// from the page), and mounts the widget at the end of <body> inside a shadow root. The only
// global is `window.Service = { mount }`.
import { on, safe } from './dom.js';
import { startPreview } from './preview.js';
import { startWidget, type TConfig } from './widget.js';

/** The global the widget defines. */
export type TServiceGlobal = { mount: (host?: Element) => void };

declare global {
  interface Window {
    Service?: TServiceGlobal;
  }
}

/** The widget's own script tag: the running script, else the last one loaded from /widget/widget.js. */
function ownScript(): HTMLScriptElement | null {
  const current = document.currentScript;
  if (current && current.tagName === 'SCRIPT' && current instanceof HTMLScriptElement) return current;
  const scripts = Array.from(document.querySelectorAll('script[src]')).filter((s): s is HTMLScriptElement =>
    /\/widget\/widget(?:\.[0-9a-f]{8})?\.js(?:[?#]|$)/.test(s.getAttribute('src') ?? ''),
  );
  return scripts[scripts.length - 1] ?? null;
}

function readConfig(script: HTMLScriptElement | null): TConfig | null {
  if (!script?.src) return null;
  const attr = (name: string) => script.getAttribute(name)?.trim() ?? '';
  const base = new URL(script.src).origin;
  // The console's preview: only on a page of the service itself (never on a customer's site).
  if (script.hasAttribute('data-preview')) {
    return base === location.origin
      ? { base, agentId: '', dataLocale: '', shopperToken: '', preview: true }
      : null;
  }
  const agentId = attr('data-agent-id');
  if (!agentId) return null;
  return { base, agentId, dataLocale: attr('data-locale'), shopperToken: attr('data-shopper-token') };
}

/** Keeps a body-mounted container attached when a single-page app re-renders <body>. */
function keepAttached(container: HTMLElement): void {
  if (typeof MutationObserver !== 'function') return;
  let body: HTMLElement | null = null;
  const observer = new MutationObserver(
    safe(() => {
      if (!container.isConnected && document.body) document.body.appendChild(container);
      watch();
    }),
  );
  const watch = () => {
    if (body === document.body) return;
    body = document.body;
    observer.observe(document.documentElement, { childList: true });
    if (body) observer.observe(body, { childList: true });
  };
  watch();
  on(window, 'popstate', () => {
    if (!container.isConnected && document.body) document.body.appendChild(container);
  });
}

function boot(config: TConfig | null): TServiceGlobal {
  let mounted = false;
  const mount = (host?: Element) => {
    if (mounted || !config) return;
    const target = host ?? document.body;
    if (!target) return;
    mounted = true;
    const container = document.createElement('div');
    container.setAttribute('data-service-widget', '');
    // Open so browser tests can reach the UI; the page's CSS cannot cross it either way.
    const shadow = container.attachShadow({ mode: 'open' });
    target.appendChild(container);
    if (!host) keepAttached(container);
    if (config.preview) safe(startPreview)(shadow, config.base);
    else safe(startWidget)(shadow, config, () => container.remove());
  };
  return { mount: safe(mount) };
}

safe(() => {
  if (window.Service) return;
  const script = ownScript();
  const service = boot(readConfig(script));
  window.Service = service;
  if (script?.getAttribute('data-mount') === 'manual') return;
  if (document.body) service.mount();
  else on(document, 'DOMContentLoaded', () => service.mount());
})();
