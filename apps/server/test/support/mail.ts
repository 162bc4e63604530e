import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { createSecretKeyring } from '../../src/security/secret-keyring.js';
import { MAIL_BODY_PURPOSE } from '../../src/services/mail/queue-mail.js';

/** The plain-text body of a stored (not yet sent) mail, opened with the app's APP_KEY. */
export async function storedMailText(db: Kysely<DB>, appKey: Buffer, mailId: string): Promise<string> {
  const row = await db
    .selectFrom('mail_messages')
    .select(['id', 'body_sealed'])
    .where('id', '=', mailId)
    .executeTakeFirstOrThrow();
  if (row.body_sealed === null) throw new Error(`mail ${mailId} has no stored body`);
  const bodies: unknown = JSON.parse(
    createSecretKeyring(appKey).open(row.body_sealed, MAIL_BODY_PURPOSE, row.id),
  );
  if (typeof bodies !== 'object' || bodies === null) throw new Error('stored body is not an object');
  const text: unknown = Reflect.get(bodies, 'text');
  if (typeof text !== 'string') throw new Error('stored body has no text');
  return text;
}

/** The reset link in a mail's text, and the token its fragment carries. */
export function resetLinkOf(text: string): { link: string; token: string } {
  const link = /https?:\/\/\S+\/admin\/reset-password#token=\S+/.exec(text)?.[0];
  if (!link) throw new Error(`no reset link in:\n${text}`);
  const token = decodeURIComponent(new URL(link).hash.replace(/^#token=/, ''));
  return { link, token };
}

/** Decodes a quoted-printable body (RFC 2045 §6.7): soft line breaks and =XX octets. */
export function decodeQuotedPrintable(body: string): string {
  const joined = body.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i += 1) {
    const hex = joined.slice(i + 1, i + 3);
    if (joined[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(joined[i] ?? '', 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The text/plain part of a raw RFC 5322 message nodemailer built (multipart/alternative), decoded. */
export function plainTextOf(raw: string): string {
  const match =
    /Content-Type: text\/plain[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*?Content-Transfer-Encoding: ([\w-]+)\r?\n\r?\n([\s\S]*?)\r?\n--/i.exec(
      raw,
    );
  if (!match) throw new Error(`no text/plain part in:\n${raw.slice(0, 2000)}`);
  const [, encoding = '', body = ''] = match;
  if (encoding.toLowerCase() === 'quoted-printable') return decodeQuotedPrintable(body);
  if (encoding.toLowerCase() === 'base64') return Buffer.from(body, 'base64').toString('utf8');
  return body;
}
