// UI language (contract D): data-locale, then <html lang>, then the agent's default when the
// page declares none, then navigator.languages, then English. A regional tag falls back to
// its base language unless a regional file exists (en-GB → en, pt-BR stays). English ships in
// the bundle; the other locales are fetched on demand, by content hash.
import en from './locales/en.json';
import { isRecord } from './types.js';

/** A UI string key (the English file is the reference). */
export type TKey = keyof typeof en;

/** Scripts written right to left. */
const RTL = ['ar', 'he', 'fa', 'ur'];
/** Legacy or macro codes that name a locale under another tag. */
const ALIASES: Record<string, string> = { no: 'nb', nn: 'nb', iw: 'he', in: 'id' };

/** The best available tag (lower case) for one requested tag, or null. */
export function matchLocale(requested: string, available: readonly string[]): string | null {
  const tag = requested.trim().toLowerCase().replace(/_/g, '-');
  if (!tag) return null;
  const has = (candidate: string) => (available.includes(candidate) ? candidate : null);
  const base = tag.split('-')[0] ?? '';
  return has(tag) ?? has(base) ?? has(ALIASES[base] ?? '');
}

/** Where the language may come from, in the page and the browser. */
export type TLocaleSources = {
  dataLocale?: string | null | undefined;
  htmlLang?: string | null | undefined;
  agentDefault?: string | null | undefined;
  languages?: readonly string[] | undefined;
};

/** The language the page itself declares (data-locale or <html lang>), or null. */
export function pageLocale(sources: TLocaleSources): string | null {
  return sources.dataLocale?.trim() || sources.htmlLang?.trim() || null;
}

/** Resolves the UI language among `available` (lower-case tags) and whether it is RTL. */
export function resolveLocale(
  sources: TLocaleSources,
  available: readonly string[],
): { tag: string; rtl: boolean } {
  const declared = [sources.dataLocale, sources.htmlLang].filter((t): t is string => Boolean(t?.trim()));
  const candidates = [...declared];
  if (declared.length === 0 && sources.agentDefault) candidates.push(sources.agentDefault);
  candidates.push(...(sources.languages ?? []));
  let tag = 'en';
  for (const candidate of candidates) {
    const match = matchLocale(candidate, available);
    if (match) {
      tag = match;
      break;
    }
  }
  return { tag, rtl: RTL.includes(tag.split('-')[0] ?? '') };
}

/** The build's locale files, tag → content hash (English is built in, so not among them). */
export function localeHashes(): Record<string, string> {
  return typeof __WIDGET_LOCALES__ === 'object' && __WIDGET_LOCALES__ ? __WIDGET_LOCALES__ : {};
}

let strings: Record<string, string> = {};

/** The UI text for a key in the loaded locale, English when it has none. */
export function t(key: TKey): string {
  return strings[key] || en[key];
}

/** Installs a locale's strings (a flat map; other values are ignored). */
export function setStrings(value: unknown): void {
  const next: Record<string, string> = {};
  if (isRecord(value)) {
    for (const [key, text] of Object.entries(value)) if (typeof text === 'string') next[key] = text;
  }
  strings = next;
}

/** Fetches a locale's strings from the service (`en` is built in); false when it could not. */
export async function loadLocale(
  base: string,
  tag: string,
  hashes: Record<string, string>,
  fetcher: (url: string) => Promise<Response>,
): Promise<boolean> {
  if (tag === 'en' || !hashes[tag]) {
    setStrings({});
    return tag === 'en';
  }
  try {
    const res = await fetcher(`${base}/widget/locales/${tag}.json?v=${hashes[tag]}`);
    if (!res.ok) return false;
    setStrings(await res.json());
    return true;
  } catch {
    return false;
  }
}
