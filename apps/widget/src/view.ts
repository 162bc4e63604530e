// The widget's DOM shell: launcher, trigger bubble, and the panel (header, menu, message log,
// composer). Built once; the controller fills it. Text goes in through textContent only.
import { h, icon } from './dom.js';
import { t } from './locale.js';

/** The shell's elements the controller works with. */
export type TView = ReturnType<typeof createView>;

/** Builds the shell inside `root` (the panel starts hidden). */
export function createView(doc: Document, root: HTMLElement) {
  const label = h(doc, 'span', { hidden: true });
  const launcher = h(
    doc,
    'button',
    {
      type: 'button',
      class: 'l',
      'aria-expanded': 'false',
      'aria-controls': 'svc-panel',
      'aria-label': t('open'),
      'data-testid': 'launcher',
    },
    icon(doc, 'chat'),
    label,
  );
  const bubbleText = h(doc, 'button', { type: 'button', class: 'bt', 'data-testid': 'bubble-text' });
  const bubbleClose = h(
    doc,
    'button',
    { type: 'button', class: 'x', 'aria-label': t('dismiss') },
    icon(doc, 'close'),
  );
  const bubble = h(
    doc,
    'div',
    { class: 'b', role: 'status', hidden: true, 'data-testid': 'bubble' },
    bubbleText,
    bubbleClose,
  );

  const title = h(doc, 'h2', {}, t('chat'));
  const iconButton = (name: 'more' | 'reset' | 'close', text: string, testid: string) =>
    h(
      doc,
      'button',
      { type: 'button', class: 'i', 'aria-label': text, title: text, 'data-testid': testid },
      icon(doc, name),
    );
  const menuButton = iconButton('more', t('menu'), 'menu');
  menuButton.setAttribute('aria-haspopup', 'menu');
  menuButton.setAttribute('aria-expanded', 'false');
  const clearButton = iconButton('reset', t('clear'), 'clear');
  const closeButton = iconButton('close', t('close'), 'close');
  const menu = h(doc, 'div', { class: 'mn', role: 'menu', hidden: true, 'data-testid': 'menu-list' });
  const log = h(doc, 'div', { class: 'lg', role: 'log', 'aria-live': 'polite', 'data-testid': 'messages' });
  const input = h(doc, 'textarea', {
    rows: '1',
    maxlength: '4000',
    placeholder: t('placeholder'),
    'aria-label': t('placeholder'),
    'data-testid': 'input',
  });
  const sendButton = h(
    doc,
    'button',
    { type: 'button', class: 'sd', 'aria-label': t('send'), title: t('send'), 'data-testid': 'send' },
    icon(doc, 'send'),
  );
  const panel = h(
    doc,
    'div',
    {
      id: 'svc-panel',
      class: 'p',
      role: 'dialog',
      'aria-label': t('chat'),
      hidden: true,
      'data-testid': 'panel',
    },
    h(doc, 'div', { class: 'hd' }, title, menuButton, clearButton, closeButton),
    menu,
    log,
    h(doc, 'div', { class: 'cp' }, input, sendButton),
  );
  root.append(panel, bubble, launcher);

  /** Adds a menu entry. */
  const addMenuItem = (text: string, testid: string): HTMLButtonElement => {
    const item = h(doc, 'button', { type: 'button', role: 'menuitem', 'data-testid': testid }, text);
    menu.append(item);
    return item;
  };
  /** Appends to the log and keeps the newest item in view. */
  const append = (node: Node): void => {
    log.append(node);
    log.scrollTop = log.scrollHeight;
  };
  /** A message bubble; `role` is visitor, assistant or operator. */
  const message = (role: string): HTMLDivElement => {
    const el = h(doc, 'div', { class: `m ${role.charAt(0)}`, 'data-testid': 'message', 'data-role': role });
    if (role === 'operator') el.append(h(doc, 'span', { class: 'w' }, t('operator')));
    append(el);
    return el;
  };
  /** A status line (errors, "an agent will reply", …). */
  const notice = (text: string): void =>
    append(h(doc, 'div', { class: 'n', role: 'status', 'data-testid': 'notice' }, text));
  /** The animated "typing" dots. */
  const dots = (): HTMLSpanElement =>
    h(
      doc,
      'span',
      { 'aria-label': t('typing'), role: 'img' },
      h(doc, 'span', { class: 'd' }),
      h(doc, 'span', { class: 'd' }),
      h(doc, 'span', { class: 'd' }),
    );

  return {
    launcher,
    label,
    bubble,
    bubbleText,
    bubbleClose,
    panel,
    title,
    menuButton,
    menu,
    clearButton,
    closeButton,
    log,
    input,
    sendButton,
    addMenuItem,
    append,
    message,
    notice,
    dots,
  };
}
