// The agent's look on the widget's shell: theme colours, corner radius, corner, launcher label
// and name. One function for the live widget and the console's preview, so the preview shows
// exactly what visitors get.
import { t } from './locale.js';
import type { TTheme } from './types.js';
import type { TView } from './view.js';

const HEX = /^#(?:[0-9a-f]{3}){1,2}$/i;

/** Black or white, whichever reads better on a hex background. */
export function contrastColor(hex: string): string {
  const full = hex.length === 4 ? hex.replace(/[0-9a-f]/gi, '$&$&') : hex;
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(full.slice(i, i + 2), 16));
  return (r ?? 0) * 0.299 + (g ?? 0) * 0.587 + (b ?? 0) * 0.114 > 160 ? '#111' : '#fff';
}

/** Applies `theme` and `name` to the shell; idempotent (the preview calls it on every edit). */
export function applyLook(root: HTMLElement, view: TView, name: string, theme: TTheme): void {
  const primary = HEX.test(theme.primary) ? theme.primary : '#1f6feb';
  root.style.setProperty('--p', primary);
  // The service sends text colours checked for WCAG AA; the console's preview computes its own.
  const color = (value = '', fallback: string) => (HEX.test(value) ? value : fallback);
  root.style.setProperty('--pc', color(theme.on_primary, contrastColor(primary)));
  root.style.setProperty('--pt', color(theme.primary_text, primary));
  if (HEX.test(theme.accent)) root.style.setProperty('--a', theme.accent);
  else root.style.removeProperty('--a');
  root.style.setProperty('--rad', `${Math.max(0, Math.min(32, Number(theme.radius) || 0))}px`);
  root.classList.toggle('left', theme.position === 'bottom-left');
  view.label.textContent = theme.launcher_label || '';
  view.label.hidden = !theme.launcher_label;
  // A shown label names the button (WCAG 2.5.3, label in name); the icon alone needs one.
  if (theme.launcher_label) view.launcher.removeAttribute('aria-label');
  else view.launcher.setAttribute('aria-label', t('open'));
  view.title.textContent = name || t('chat');
  view.panel.setAttribute('aria-label', name || t('chat'));
}
