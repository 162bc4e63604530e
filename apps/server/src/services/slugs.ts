/** Turns a name into a URL slug (`Acme Shop!` → `acme-shop`): ASCII letters, digits and dashes. */
export function slugify(text: string, options: { maxLength: number; fallback: string }): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, options.maxLength)
    .replace(/-+$/g, '');
  return slug || options.fallback;
}

/** The first of `base`, `base-2`, `base-3`, … not in `taken`. */
export function firstFreeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  let slug = base;
  for (let n = 2; used.has(slug); n += 1) slug = `${base}-${n}`;
  return slug;
}

/** Matches `base` and its numbered variants (`base-…`); slugs hold no LIKE wildcards. */
export function slugFamilyPattern(base: string): string {
  return `${base}-%`;
}
