// Tiny DOM helpers: elements from tag + attributes + children (text children become text
// nodes, never markup), inline SVG icons, and handlers that cannot throw into the page.

/** A child of `h`: nodes as they are, strings as text, falsy values skipped. */
export type TChild = Node | string | null | undefined | false;

/** Runs `fn`, swallowing both throws and rejected promises (the host page must never see them). */
export function safe<A extends unknown[]>(fn: (...args: A) => unknown): (...args: A) => void {
  return (...args) => {
    try {
      const result = fn(...args);
      if (result instanceof Promise) result.catch(() => {});
    } catch {}
  };
}

/** Creates an element; `attrs` values of `true` set an empty attribute, false/undefined skip. */
export function h<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: TChild[]
): HTMLElementTagNameMap[K] {
  const el = doc.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === true) el.setAttribute(key, '');
    else if (typeof value === 'string') el.setAttribute(key, value);
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

/** Adds an event listener whose errors stay inside the widget. */
export function on(
  target: EventTarget,
  type: string,
  fn: (event: Event) => unknown,
  passive = false,
): () => void {
  const listener = safe(fn);
  target.addEventListener(type, listener, passive ? { passive: true } : false);
  return () => target.removeEventListener(type, listener);
}

const PATHS = {
  chat: 'M20 2H4a2 2 0 0 0-2 2v18l4-4h14a2 2 0 0 0 2-2V4a2 2 0 0 0-2-2z',
  close: 'M19 6.4 17.6 5 12 10.6 6.4 5 5 6.4 10.6 12 5 17.6 6.4 19 12 13.4 17.6 19 19 17.6 13.4 12z',
  send: 'M2 21 23 12 2 3v7l15 2-15 2z',
  more: 'M12 8a2 2 0 1 0 0-4 2 2 0 0 0 0 4zm0 2a2 2 0 1 0 0 4 2 2 0 0 0 0-4zm0 6a2 2 0 1 0 0 4 2 2 0 0 0 0-4z',
  reset:
    'M17.65 6.35A7.96 7.96 0 0 0 12 4a8 8 0 1 0 7.73 10h-2.08A6 6 0 1 1 12 6c1.66 0 3.14.69 4.22 1.78L13 11h7V4z',
  thumb:
    'M1 21h4V9H1v12zm22-11a2 2 0 0 0-2-2h-6.31l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L14.17 1 7.59 7.59A2 2 0 0 0 7 9v10a2 2 0 0 0 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z',
  copy: 'M16 1H4a2 2 0 0 0-2 2v14h2V3h12V1zm3 4H8a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h11a2 2 0 0 0 2-2V7a2 2 0 0 0-2-2zm0 16H8V7h11v14z',
};

/** An inline SVG icon (decorative: hidden from assistive technology). */
export function icon(doc: Document, name: keyof typeof PATHS): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = doc.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = doc.createElementNS(ns, 'path');
  path.setAttribute('d', PATHS[name]);
  svg.appendChild(path);
  return svg;
}
