const LANGUAGE_TAG = /^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$/;

/** A language tag in the service's form (lower case, `-`), or null when it is not one. */
export function normalizeLanguageTag(input: string | null | undefined): string | null {
  if (!input) return null;
  const tag = input.trim().toLowerCase().replace(/_/g, '-');
  return LANGUAGE_TAG.test(tag) && tag.length <= 35 ? tag : null;
}

/**
 * The preferred language of an Accept-Language header (RFC 9110 §12.5.4): the tag with the
 * highest q (ties keep header order); `*`, q=0 and malformed entries are skipped.
 */
export function preferredLanguage(header: string | undefined): string | null {
  if (!header) return null;
  let best: { tag: string; q: number } | null = null;
  for (const part of header.split(',').slice(0, 20)) {
    const [rawTag, ...params] = part.trim().split(';');
    const tag = normalizeLanguageTag(rawTag);
    if (!tag) continue;
    let q = 1;
    for (const param of params) {
      const match = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(param);
      if (match?.[1]) q = Number(match[1]);
    }
    if (q > 0 && (!best || q > best.q)) best = { tag, q };
  }
  return best?.tag ?? null;
}

/**
 * The conversation language: an explicit locale first, then the agent's default, then the
 * visitor's Accept-Language, then English.
 */
export function resolveLanguage(
  locale: string | undefined,
  agentDefault: string | null,
  acceptLanguage: string | undefined,
): string {
  return (
    normalizeLanguageTag(locale) ??
    normalizeLanguageTag(agentDefault) ??
    preferredLanguage(acceptLanguage) ??
    'en'
  );
}
