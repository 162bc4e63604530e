/**
 * A workspace's colour as CSS custom properties, with the shades derived so text stays readable:
 * links are darkened (light scheme) or lightened (dark scheme) until they reach WCAG's 4.5:1
 * against the page, and text on a coloured button is black or white, whichever contrasts more.
 */

type Rgb = readonly [number, number, number];

/** The light scheme's backgrounds in kb.css (`--bg`, `--panel`, `--code`): links sit on each. */
const LIGHT_BACKGROUNDS: readonly Rgb[] = [
  [255, 255, 255],
  [245, 247, 249],
  [238, 241, 244],
];
/** The dark scheme's backgrounds in kb.css. */
const DARK_BACKGROUNDS: readonly Rgb[] = [
  [17, 20, 24],
  [26, 31, 37],
  [35, 41, 49],
];
const BLACK: Rgb = [0, 0, 0];
const WHITE: Rgb = [255, 255, 255];
/** WCAG 2.x AA for body text; a little over it, so rounding never lands just under. */
const MIN_CONTRAST = 4.6;

function parseHex(hex: string): Rgb {
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

function toHex(rgb: Rgb): string {
  return `#${rgb.map((part) => Math.round(part).toString(16).padStart(2, '0')).join('')}`;
}

/** Relative luminance (WCAG 2.x). */
function luminance([r, g, b]: Rgb): number {
  const linear = (part: number) => {
    const c = part / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** Contrast ratio of two colours (WCAG 2.x), 1 to 21. */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [la, lb] = [luminance(a), luminance(b)];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** `from` moved `amount` (0 to 1) of the way to `to`, rounded to whole channel values. */
function mix(from: Rgb, to: Rgb, amount: number): Rgb {
  const channel = (a: number, b: number) => Math.round(a + (b - a) * amount);
  return [channel(from[0], to[0]), channel(from[1], to[1]), channel(from[2], to[2])];
}

/** `color` moved toward `toward` in small steps until it reaches the contrast on every background. */
function readableOn(color: Rgb, backgrounds: readonly Rgb[], toward: Rgb): Rgb {
  for (let step = 0; step <= 20; step += 1) {
    const candidate = mix(color, toward, step / 20);
    if (backgrounds.every((background) => contrastRatio(candidate, background) >= MIN_CONTRAST)) {
      return candidate;
    }
  }
  return toward;
}

/** The stylesheet for one workspace colour (`#rrggbb`, already validated). */
export function themeCss(hex: string): string {
  const color = parseHex(hex);
  const onColor = contrastRatio(color, WHITE) >= contrastRatio(color, BLACK) ? '#ffffff' : '#000000';
  return [
    `:root{--brand:${toHex(color)};--on-brand:${onColor};--link:${toHex(readableOn(color, LIGHT_BACKGROUNDS, BLACK))}}`,
    `@media (prefers-color-scheme: dark){:root{--link:${toHex(readableOn(color, DARK_BACKGROUNDS, WHITE))}}}`,
    '',
  ].join('\n');
}
