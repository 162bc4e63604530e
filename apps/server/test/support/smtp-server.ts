import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { sendMailJob } from '../../src/jobs/send-mail.js';
import { createLogger } from '../../src/logger.js';
import type { Mailer } from '../../src/mail/mail-transport.js';
import { JobQueue } from '../../src/queue/job-queue.js';
import { type TestApp, workerServices } from './test-app.js';

/** One message the in-process SMTP server accepted. */
export type Received = { from: string; to: string[]; raw: string };

/**
 * An SMTP server on loopback inside the test process: it keeps what arrives, and refuses (550)
 * every recipient whose address starts with `reject`.
 */
export async function startSmtpServer(): Promise<{
  port: number;
  received: Received[];
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('reject')) {
        const refusal = Object.assign(new Error('mailbox unavailable'), { responseCode: 550 });
        callback(refusal);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * A worker for the send-mail queue only, on the test app's store, logging to `log`: the app's own
 * queue sends the jobs, this one works them (no other job runs while the test looks).
 */
export async function startMailWorker(
  t: TestApp,
  mailer: Mailer,
  log = createLogger('silent'),
): Promise<JobQueue> {
  const worker = await JobQueue.start({
    pool: t.database.background.pool,
    db: t.database.background.db,
    log,
    definitions: [sendMailJob],
    maintenance: false,
  });
  await worker.work({ ...workerServices(t), mailer }, { pollingIntervalSeconds: 0.5 });
  return worker;
}
