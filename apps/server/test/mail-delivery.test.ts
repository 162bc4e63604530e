import assert from 'node:assert/strict';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendMailJob } from '../src/jobs/send-mail.js';
import { createLogger } from '../src/logger.js';
import { createMailer, type Mailer } from '../src/mail/mail-transport.js';
import type { JobQueue } from '../src/queue/job-queue.js';
import { SEND_MAIL_RETRY_LIMIT } from '../src/queue/job-specs.js';
import { postSignIn } from './support/admin-session.js';
import { plainTextOf, resetLinkOf } from './support/mail.js';
import { startMailWorker, startSmtpServer } from './support/smtp-server.js';
import { createTestApp, seedTenant, type TestApp, workerContext } from './support/test-app.js';

const RESET = '/api/v1/admin/password-reset';
const NEW_PASSWORD = 'mailed and reset';

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let i = 0; i < 200; i += 1) {
    const found = await probe();
    if (found !== undefined) return found;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A logger that keeps its JSON lines. */
function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger('info', {
    write: (chunk: string) => void lines.push(JSON.parse(chunk) as Record<string, unknown>),
  });
  return { log, lines };
}

describe('mail over SMTP: a reset mail reaches the server and its link resets the password', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let t: TestApp;
  let mailer: Mailer;
  let worker: JobQueue;

  before(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp({
      env: {
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        MAIL_FROM: 'Support <support@chat.example.test>',
        PUBLIC_BASE_URL: 'https://chat.example.test',
      },
    });
    mailer = createMailer({
      smtpUrl: t.config.mail.smtpUrl,
      outboxDir: join(t.config.dataDir, 'outbox'),
      from: t.config.mail.from,
    });
    assert.equal(mailer.kind, 'smtp');
    worker = await startMailWorker(t, mailer);
  });
  after(async () => {
    // The worker stops (and its polling timers with it) before the store closes under it.
    await worker.stop(5_000);
    await t.close();
    mailer.close();
    await smtp.close();
  });

  test('the job queue sends it over SMTP; the test follows the link and the new password signs in', async () => {
    const tenant = await seedTenant(t, 'Mail over SMTP');
    const asked = await t.app.inject({
      method: 'POST',
      url: RESET,
      headers: { 'content-type': 'application/json', 'accept-language': 'de-CH, fr;q=0.8' },
      payload: JSON.stringify({ email: tenant.user.email }),
    });
    assert.equal(asked.statusCode, 202, asked.body);

    const message = await waitFor('the reset mail', () =>
      smtp.received.find((m) => m.to.includes(tenant.user.email)),
    );
    assert.equal(message.from, 'support@chat.example.test');
    assert.match(message.raw, /^From: Support <support@chat\.example\.test>\r$/m);
    assert.match(message.raw, /^Content-Type: multipart\/alternative/m);
    assert.match(message.raw, /^Content-Type: text\/html/m);
    const text = plainTextOf(message.raw);
    assert.match(text, /Neues Passwort wählen/, 'in the language the request asked for');
    const { link, token } = resetLinkOf(text);
    assert.ok(link.startsWith('https://chat.example.test/admin/reset-password#token='));

    // Following the link: the console's reset page, then the confirm call it makes with the fragment's token.
    const page = await t.app.inject({ method: 'GET', url: new URL(link).pathname });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    const confirmed = await t.app.inject({
      method: 'POST',
      url: `${RESET}/confirm`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ token, password: NEW_PASSWORD }),
    });
    assert.equal(confirmed.statusCode, 204, confirmed.body);
    const signedIn = await postSignIn(
      t.app,
      { email: tenant.user.email, password: NEW_PASSWORD },
      '10.1.1.1',
    );
    assert.equal(signedIn.statusCode, 200, signedIn.body);

    const row = await waitFor('the mail marked sent', async () => {
      const found = await t.database.db
        .selectFrom('mail_messages')
        .selectAll()
        .where('to_address', '=', tenant.user.email)
        .executeTakeFirst();
      return found?.status === 'sent' ? found : undefined;
    });
    assert.equal(row.transport, 'smtp');
    assert.equal(row.body_sealed, null, 'the sealed body is dropped once sent');
    assert.equal(row.language, 'de');
    assert.equal(row.attempts, 1);
  });

  test('an invite goes over SMTP too; its link joins a new person to the workspace', async () => {
    const tenant = await seedTenant(t, 'Invites over SMTP');
    const email = 'new.person@example.com';
    const invited = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/invites',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ email, role: 'editor' }),
    });
    assert.equal(invited.statusCode, 201, invited.body);

    const message = await waitFor('the invite mail', () => smtp.received.find((m) => m.to.includes(email)));
    assert.equal(message.from, 'support@chat.example.test');
    const text = plainTextOf(message.raw);
    assert.match(text, /Invites over SMTP/, 'names the workspace');
    const link = /https:\/\/chat\.example\.test\/admin\/accept-invite#token=\S+/.exec(text)?.[0];
    assert.ok(link, text);
    const token = decodeURIComponent(new URL(link).hash.replace(/^#token=/, ''));

    const accepted = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/invites/accept',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ token, name: 'New Person', password: NEW_PASSWORD }),
    });
    assert.equal(accepted.statusCode, 200, accepted.body);
    const member = await t.database.db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select(['memberships.role'])
      .where('memberships.workspace_id', '=', tenant.workspace.id)
      .where('users.email', '=', email)
      .executeTakeFirst();
    assert.equal(member?.role, 'editor');
  });
});

describe('mail failures: retried, then failed, recorded and logged at error level', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let t: TestApp;
  let mailer: Mailer;

  before(async () => {
    smtp = await startSmtpServer();
    // The queue is not worked here: the test runs the job's attempts itself.
    t = await createTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}` } });
    mailer = createMailer({
      smtpUrl: t.config.mail.smtpUrl,
      outboxDir: join(t.config.dataDir, 'outbox'),
      from: t.config.mail.from,
    });
  });
  after(async () => {
    await t.close();
    mailer.close();
    await smtp.close();
  });

  test('a refused recipient: each attempt records the error; the last one marks the mail failed', async () => {
    const tenant = await seedTenant(t);
    const email = `reject-${tenant.user.id.toLowerCase()}@example.com`;
    await t.database.db.updateTable('users').set({ email }).where('id', '=', tenant.user.id).execute();
    const asked = await t.app.inject({
      method: 'POST',
      url: RESET,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email }),
    });
    assert.equal(asked.statusCode, 202);
    const { id: mailId } = await t.database.db
      .selectFrom('mail_messages')
      .select('id')
      .where('to_address', '=', email)
      .executeTakeFirstOrThrow();
    const capture = captureLogger();
    const context = (attempt: number) => ({ ...workerContext(t), mailer, attempt, log: capture.log });

    await assert.rejects(sendMailJob.handle({ mailId }, context(1)), /not sent: .*550/);
    let row = await t.database.db
      .selectFrom('mail_messages')
      .selectAll()
      .where('id', '=', mailId)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'pending');
    assert.equal(row.attempts, 1);
    assert.match(row.last_error ?? '', /550/);
    assert.notEqual(row.body_sealed, null, 'kept for the retry');

    await sendMailJob.handle({ mailId }, context(SEND_MAIL_RETRY_LIMIT + 1));
    row = await t.database.db
      .selectFrom('mail_messages')
      .selectAll()
      .where('id', '=', mailId)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'failed');
    assert.equal(row.attempts, 2);
    assert.equal(row.body_sealed, null);
    const errorLine = capture.lines.find((line) => line.level === 50 && line.msg === 'mail failed');
    assert.ok(errorLine, 'logged at error level');
    assert.equal(errorLine.mailId, mailId);
    assert.equal(smtp.received.length, 0);

    // A failed mail is left alone by a late run.
    await sendMailJob.handle({ mailId }, context(2));
    assert.equal(smtp.received.length, 0);
  });

  test('the spec retries with backoff', () => {
    assert.equal(sendMailJob.retryLimit, SEND_MAIL_RETRY_LIMIT);
    assert.ok(SEND_MAIL_RETRY_LIMIT >= 3);
    assert.equal(sendMailJob.retryBackoff, true);
  });
});

describe('mail on the embedded default: no SMTP_URL, the outbox file appears and the log names it', () => {
  let t: TestApp;
  let queue: JobQueue;
  let mailer: Mailer;
  const capture = captureLogger();

  before(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: 'http://localhost:8080' } });
    // The worker's own queue, logging where the test reads it.
    mailer = createMailer({
      smtpUrl: t.config.mail.smtpUrl,
      outboxDir: join(t.config.dataDir, 'outbox'),
      from: t.config.mail.from,
    });
    assert.equal(mailer.kind, 'outbox');
    queue = await startMailWorker(t, mailer, capture.log);
  });
  after(async () => {
    await queue.stop(5_000);
    mailer.close();
    await t.close();
  });

  test('DATA_DIR/outbox/<id>.eml holds the mail (owner-only), and a warn line names the file and the link', async () => {
    const tenant = await seedTenant(t, 'Outbox');
    const asked = await t.app.inject({
      method: 'POST',
      url: RESET,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: tenant.user.email }),
    });
    assert.equal(asked.statusCode, 202);
    const outbox = join(t.config.dataDir, 'outbox');
    const file = await waitFor('the outbox file', async () => {
      const names = await readdir(outbox).catch(() => []);
      const name = names.find((n) => n.endsWith('.eml'));
      return name ? join(outbox, name) : undefined;
    });
    const row = await waitFor('the mail marked sent', async () => {
      const found = await t.database.db
        .selectFrom('mail_messages')
        .selectAll()
        .where('to_address', '=', tenant.user.email)
        .executeTakeFirst();
      return found?.status === 'sent' ? found : undefined;
    });
    assert.equal(file, join(outbox, `${row.id}.eml`));
    assert.equal(row.transport, 'outbox');
    assert.equal(row.outbox_file, file);
    assert.equal((await stat(file)).mode & 0o777, 0o600);

    const raw = await readFile(file, 'utf8');
    assert.match(raw, new RegExp(`^To: ${tenant.user.email.replace(/[.+]/g, '\\$&')}\\r$`, 'm'));
    const { link, token } = resetLinkOf(plainTextOf(raw));
    assert.ok(link.startsWith('http://localhost:8080/admin/reset-password#token='));

    const line = capture.lines.find((l) => l.mailId === row.id && l.level === 40);
    assert.ok(line, 'a warn line for the mail');
    assert.equal(line.outboxFile, file);
    assert.match(String(line.msg), new RegExp(file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.ok(String(line.msg).includes(link), 'the message names the link');
    assert.deepEqual(line.links, [link]);

    const confirmed = await t.app.inject({
      method: 'POST',
      url: `${RESET}/confirm`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ token, password: NEW_PASSWORD }),
    });
    assert.equal(confirmed.statusCode, 204, confirmed.body);
  });
});
