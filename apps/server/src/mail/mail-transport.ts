import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';

/** One rendered mail to send. */
export type OutgoingMail = {
  /** The stored mail's id: names the outbox file and the Message-ID, so a retry is recognisable. */
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
};

/** How a mail left: over SMTP, or as a file in the outbox (its path). */
export type SentMail = { transport: 'smtp' } | { transport: 'outbox'; file: string };

/** Sends mail: SMTP when configured, otherwise `.eml` files in the outbox directory. */
export type Mailer = {
  readonly kind: 'smtp' | 'outbox';
  send(mail: OutgoingMail): Promise<SentMail>;
  close(): void;
};

/** Budget of one SMTP attempt (connect, greeting, each command): a stuck server fails the attempt. */
const SMTP_TIMEOUT_MS = 20_000;

/**
 * The mailer of a configuration: nodemailer's SMTP transport over `smtpUrl` (smtp:// or
 * smtps://, credentials in the URL), or, without one, nodemailer's stream transport writing
 * each message as `<outboxDir>/<id>.eml` (mode 0600: a reset mail holds a live link).
 */
export function createMailer(options: {
  smtpUrl: string | undefined;
  outboxDir: string;
  from: string;
}): Mailer {
  const smtpUrl = options.smtpUrl;
  if (smtpUrl) {
    const url = new URL(smtpUrl);
    const transport = createTransport({
      host: url.hostname,
      port: url.port === '' ? undefined : Number(url.port),
      secure: url.protocol === 'smtps:',
      ...(url.username
        ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
        : {}),
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    });
    return {
      kind: 'smtp',
      async send(mail) {
        await transport.sendMail(messageOf(mail, options.from));
        return { transport: 'smtp' };
      },
      close: () => transport.close(),
    };
  }
  const transport = createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    kind: 'outbox',
    async send(mail) {
      const info = await transport.sendMail(messageOf(mail, options.from));
      const body = Buffer.isBuffer(info.message) ? info.message : Buffer.from('');
      await mkdir(options.outboxDir, { recursive: true, mode: 0o700 });
      const file = join(options.outboxDir, `${mail.id}.eml`);
      await writeFile(file, body, { mode: 0o600 });
      return { transport: 'outbox', file };
    },
    close: () => transport.close(),
  };
}

function messageOf(mail: OutgoingMail, from: string) {
  return {
    from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    // A retry of the same stored mail carries the same Message-ID, so a receiver can tell.
    messageId: `<${mail.id.toLowerCase()}@chat-agent-service>`,
    // Links in transactional mail are not to be rewritten or tracked.
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
