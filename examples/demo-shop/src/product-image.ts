// Product pictures drawn as SVG (a coffee bag in the roast's colour), so the demo needs no image
// files and the widget's product cards still show a picture from the shop's own origin.
import { escapeHtml } from './html.js';

const ROAST_COLOURS: Record<string, string> = {
  'Filter Roast': '#c98b4e',
  'Omni Roast': '#8a4b2a',
  'Espresso Roast': '#4a2a1a',
};

/** An SVG picture of the product: its name on a bag coloured by roast. */
export function renderProductImage(product: { name: string; categories: string[] }): string {
  const roast = product.categories.find((category) => category in ROAST_COLOURS) ?? 'Omni Roast';
  const colour = ROAST_COLOURS[roast] ?? '#8a4b2a';
  // Split the name over up to three lines of about 16 characters.
  const lines: string[] = [];
  for (const word of product.name.split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && (last + word).length < 16) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  const text = lines
    .slice(0, 4)
    .map((line, i) => `<text x="120" y="${118 + i * 22}" text-anchor="middle">${escapeHtml(line)}</text>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="240" viewBox="0 0 240 240" role="img" aria-label="${escapeHtml(product.name)}">
<rect width="240" height="240" fill="#f3ebe2"/>
<path d="M60 40h120l12 170a10 10 0 0 1-10 10H58a10 10 0 0 1-10-10z" fill="${colour}"/>
<rect x="60" y="28" width="120" height="16" rx="3" fill="#2b1d14"/>
<rect x="70" y="92" width="100" height="100" rx="6" fill="#fbf7f2"/>
<g font-family="system-ui, sans-serif" font-size="13" font-weight="600" fill="#2b1d14">${text}</g>
</svg>`;
}
