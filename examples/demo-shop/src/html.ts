// A tiny HTML builder: every interpolated value is escaped unless it is already SafeHtml, so a
// customer name or a product title can never become markup.

/** Markup that is already safe to insert: built by {@link html} or marked with {@link trustedHtml}. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** What {@link html} accepts between its literal parts. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** Tagged template: `html\`<p>${name}</p>\`` escapes `name`; nested `html` and arrays pass through. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/**
 * Marks markup the shop itself authored (post bodies, product descriptions from its own
 * database) as safe. Never use it on anything a visitor or the service sent.
 */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** Cents as a euro amount for display, e.g. `€12.90`. */
export function euros(cents: number): string {
  return `€${(cents / 100).toFixed(2)}`;
}
