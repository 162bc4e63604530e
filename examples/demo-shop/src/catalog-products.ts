// The demo catalogue, generated from lists (origins × roast × size) so any number of distinct,
// realistic products comes out the same on every run. The first three are the coffees the
// service's own demo knows: House Blend, Ethiopia Yirgacheffe and Decaf Colombia.
import { ORIGIN_TABLE, parseTable } from './catalog-data.js';

type RoastCode = 'L' | 'M' | 'D';

/** A coffee origin (or blend) and what it tastes like. */
export type Origin = {
  code: string;
  name: string;
  country: string;
  region: string;
  process: string;
  altitude: string;
  notes: [string, string, string];
  /** Price of a 250 g bag, in cents. */
  basePrice: number;
  /** The roasts offered, the house favourite first. */
  roasts: RoastCode[];
  kind: 'Blends' | 'Single origin' | 'Decaf';
  story: string;
};

const ROASTS: Record<RoastCode, { label: string; bestFor: string }> = {
  L: { label: 'Filter Roast', bestFor: 'V60, Chemex, AeroPress and batch brewers' },
  M: { label: 'Omni Roast', bestFor: 'espresso and filter alike' },
  D: { label: 'Espresso Roast', bestFor: 'espresso, moka pot and milk drinks' },
};

const SIZES = [
  { code: '250', label: '250 g', factor: 1 },
  { code: '1000', label: '1 kg', factor: 3.4 },
  { code: '500', label: '500 g', factor: 1.85 },
] as const;

const isRoast = (value: string): value is RoastCode => value === 'L' || value === 'M' || value === 'D';
const isKind = (value: string): value is Origin['kind'] =>
  value === 'Blends' || value === 'Single origin' || value === 'Decaf';

const ORIGINS: Origin[] = parseTable(ORIGIN_TABLE, 11).map(
  ([
    code = '',
    name = '',
    country = '',
    region = '',
    process = '',
    altitude = '',
    notes = '',
    price = '',
    roasts = '',
    kind = '',
    story = '',
  ]) => {
    const [a = '', b = '', c = ''] = notes.split(',').map((note) => note.trim());
    if (!isKind(kind)) throw new Error(`Unknown kind ${kind} for ${name}`);
    return {
      code,
      name,
      country,
      region,
      process,
      altitude,
      notes: [a, b, c],
      basePrice: Number(price),
      roasts: roasts.split(' ').filter(isRoast),
      kind,
      story,
    };
  },
);

/** The origins and blends, for the origin stories of the blog. */
export function catalogOrigins(): readonly Origin[] {
  return ORIGINS;
}

/** A generated product, as the seed stores it (prices in cents, HTML descriptions). */
export type CatalogProduct = {
  slug: string;
  sku: string;
  name: string;
  shortDescription: string;
  description: string;
  regularPrice: number;
  salePrice: number | null;
  stockStatus: 'instock' | 'outofstock';
  categories: string[];
  attributes: string[];
};

/** Escapes text for the HTML descriptions built here. */
function esc(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A URL path segment made of the name: lower case, ASCII letters, digits and hyphens. */
export function slugify(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Rounds a price in cents up to the next amount ending in .90. */
function priceUpTo90(cents: number): number {
  return Math.ceil((cents - 90) / 100) * 100 + 90;
}

/** Rounds a price in cents down to the amount ending in .90 below it. */
function priceDownTo90(cents: number): number {
  return Math.floor((cents - 90) / 100) * 100 + 90;
}

/** Every combination in catalogue order: each size round lists every origin, favourite roast first. */
function* combinations(): Generator<{ origin: Origin; roast: RoastCode; size: (typeof SIZES)[number] }> {
  for (const roastRank of [0, 1]) {
    for (const size of SIZES) {
      for (const origin of ORIGINS) {
        const roast = origin.roasts[roastRank];
        if (roast) yield { origin, roast, size };
      }
    }
  }
}

function describe(origin: Origin, roast: RoastCode, sizeLabel: string): string {
  const [a, b, c] = origin.notes;
  const { label, bestFor } = ROASTS[roast];
  return [
    `<p>${esc(origin.story)}</p>`,
    `<p>In the cup: ${esc(a)} up front, ${esc(b)} as it cools, and a finish of ${esc(c)}. ` +
      `We roast it as our ${esc(label.toLowerCase())}, best for ${esc(bestFor)}.</p>`,
    `<ul><li>Origin: ${esc(origin.region)}, ${esc(origin.country)}</li>`,
    `<li>Process: ${esc(origin.process)}</li>`,
    `<li>Altitude: ${esc(origin.altitude)}</li>`,
    `<li>Bag: ${esc(sizeLabel)}, whole beans or ground to order</li></ul>`,
    '<p>Roasted in Lyon on Mondays and Thursdays and shipped within two business days of roasting.</p>',
  ].join('\n');
}

/** The first `count` products of the catalogue (at most {@link MAX_PRODUCTS}). */
export function catalogProducts(count: number): CatalogProduct[] {
  const out: CatalogProduct[] = [];
  for (const { origin, roast, size } of combinations()) {
    if (out.length >= count) break;
    const index = out.length;
    const roastLabel = ROASTS[roast].label;
    const name = `${origin.name} ${roastLabel} ${size.label}`;
    const regularPrice = priceUpTo90(Math.round(origin.basePrice * size.factor));
    // Every 5th product is on sale (about 15% off); every 9th is sold out. The first three stay simple.
    const isOnSale = index >= 3 && index % 5 === 4;
    const isSoldOut = index >= 3 && index % 9 === 7;
    const [a, b, c] = origin.notes;
    out.push({
      slug: slugify(name),
      sku: `NW-${origin.code}-${roast}-${size.code}`,
      name,
      shortDescription: `<p>Notes of ${esc(a)}, ${esc(b)} and ${esc(c)}. ${esc(roastLabel)}, ${esc(size.label)} bag.</p>`,
      description: describe(origin, roast, size.label),
      regularPrice,
      salePrice: isOnSale ? priceDownTo90(Math.round(regularPrice * 0.85)) : null,
      stockStatus: isSoldOut ? 'outofstock' : 'instock',
      categories: ['Coffee', origin.kind, roastLabel],
      attributes: [
        `Origin: ${origin.country}`,
        `Roast: ${roastLabel}`,
        `Size: ${size.label}`,
        `Process: ${origin.process}`,
        `Tasting notes: ${origin.notes.join(', ')}`,
      ],
    });
  }
  return out;
}

/** How many distinct products the lists can make. */
export const MAX_PRODUCTS = [...combinations()].length;
