import type { TTheme } from '@service/contract';

/** WCAG 2.x AA contrast for normal text. */
export const AA_CONTRAST = 4.5;

type Rgb = [number, number, number];

/** `#rgb` / `#rrggbb` as channels 0–255, or null when it is not a hex colour. */
export function parseHex(hex: string): Rgb | null {
  const match = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!match?.[1]) return null;
  const full = match[1].length === 3 ? match[1].replace(/./g, '$&$&') : match[1];
  return [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16)) as Rgb;
}

function toHex(rgb: Rgb): string {
  return `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

/** Relative luminance (WCAG 2.x, sRGB). */
function luminance([r, g, b]: Rgb): number {
  const lin = (c: number) => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** The contrast ratio of two colours (1–21). */
export function contrastRatio(a: string, b: string): number {
  const [x, y] = [parseHex(a), parseHex(b)];
  if (!x || !y) return 1;
  const [hi, lo] = [luminance(x), luminance(y)].sort((p, q) => q - p) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * The text colour for a background: white or near-black, whichever contrasts more; pure black
 * when neither reaches AA (a mid-luminance colour: black always gets at least 4.58:1).
 */
export function textOn(background: string): string {
  const best =
    contrastRatio(background, '#ffffff') >= contrastRatio(background, '#111111') ? '#ffffff' : '#111111';
  return contrastRatio(background, best) >= AA_CONTRAST ? best : '#000000';
}

/** `color` darkened (towards black, 5 % a step) until it reads on `background` at AA. */
export function readableOn(color: string, background: string): string {
  const rgb = parseHex(color);
  if (!rgb) return color;
  for (let step = 0; step <= 20; step++) {
    const candidate = toHex(rgb.map((c) => c * (1 - step / 20)) as Rgb);
    if (contrastRatio(candidate, background) >= AA_CONTRAST) return candidate;
  }
  return '#000000';
}

/** The agent's theme plus the text colours that keep it readable (WCAG AA), for widget init. */
export function readableTheme(theme: TTheme): TTheme & { on_primary: string; primary_text: string } {
  return { ...theme, on_primary: textOn(theme.primary), primary_text: readableOn(theme.primary, '#ffffff') };
}
