import { z } from 'zod';
import { zText } from './text.js';

/** A KB colour: exactly `#rrggbb` (the pages derive readable link and button colours from it). */
export const ZKbColor = zText().regex(
  /^#[0-9a-fA-F]{6}$/,
  'Must be a colour written #rrggbb, such as #1f6feb.',
);

/**
 * Whether `value` is a logo address the public KB may show: an `https:` URL with a host and no
 * credentials, or a path on the service's own origin (`/…`, never `//…` or `/\…`, which browsers
 * read as another host).
 */
export function isKbLogoUrl(value: string): boolean {
  // Whitespace, a backslash or a control character: browsers strip or reinterpret them.
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (code <= 0x20 || code === 0x7f || char === '\\' || /\s/u.test(char)) return false;
  }
  if (value.startsWith('/')) return !value.startsWith('//');
  // Written out in full: `https:logo.png` is a relative path on an https page, a host on others.
  if (!/^https:\/\//i.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
}

/** A KB logo: `https://…` or a same-origin path such as `/files/logo.svg`; at most 2000 characters. */
export const ZKbLogoUrl = zText()
  .max(2000)
  .refine(isKbLogoUrl, 'Must be an https:// address or a path on this service starting with a single /.');

/** The public knowledge base's settings of a workspace, as the admin API returns them. */
export const ZKbSettings = z.object({
  /** The KB's title; '' shows "<workspace name> help centre". */
  title: zText(),
  logo_url: zText().nullable(),
  color: zText().nullable(),
  /** The agent whose widget every KB page embeds; null embeds none. */
  widget_agent_id: zText().nullable(),
  /** Where the KB home is: `/kb/{workspace slug}` (absolute when PUBLIC_BASE_URL is set). */
  url: zText(),
});
export type TKbSettings = z.infer<typeof ZKbSettings>;

/** Body of `PATCH /api/v1/admin/kb/settings` (partial; null clears a field). Unknown fields are rejected. */
export const ZKbSettingsUpdate = z
  .strictObject({
    title: zText().trim().max(120),
    logo_url: ZKbLogoUrl.nullable(),
    color: ZKbColor.nullable(),
    widget_agent_id: zText().max(100).nullable(),
  })
  .partial();
export type TKbSettingsUpdate = z.infer<typeof ZKbSettingsUpdate>;
