import { z } from 'zod';
import { defineJobSpec } from './job-queue.js';

/** Retries after the first attempt of a lead push. */
export const PUSH_LEAD_RETRY_LIMIT = 5;
/** Retries after the first webhook delivery attempt; the delivery is `failed` when the last one fails. */
export const DELIVER_WEBHOOK_RETRY_LIMIT = 6;
/** Attempts an index job gets beyond the first (its last attempt marks the document failed). */
export const INDEX_RETRY_LIMIT = 5;
/** Attempts a fetch gets beyond the first; the last one's failure fails the source. */
export const FETCH_RETRY_LIMIT = 2;
/** Attempts an embedding run gets beyond the first. */
export const EMBED_RETRY_LIMIT = 8;

/** Chunks and indexes one document (jobs/index-document.ts); keyed per document. */
export const indexDocumentSpec = defineJobSpec({
  name: 'index-document',
  payload: z.object({ documentId: z.string().min(1) }),
  policy: 'stately',
  retryLimit: INDEX_RETRY_LIMIT,
});

/** Fetches one url/crawl/sitemap/sql source (jobs/fetch-source/); keyed per source. */
export const fetchSourceSpec = defineJobSpec({
  name: 'fetch-source',
  payload: z.object({ sourceId: z.string().min(1) }),
  policy: 'stately',
  retryLimit: FETCH_RETRY_LIMIT,
  // A crawl may take its whole time budget (15 minutes) plus the storing.
  expireInSeconds: 30 * 60,
});

/** Embeds an agent's chunks that have no vector yet (jobs/embed-chunks.ts); keyed per agent. */
export const embedChunksSpec = defineJobSpec({
  name: 'embed-chunks',
  payload: z.object({ agentId: z.string().min(1) }),
  policy: 'stately',
  retryLimit: EMBED_RETRY_LIMIT,
  retryDelaySeconds: 30,
});

/** Delivers one webhook event (jobs/deliver-webhook.ts). */
export const deliverWebhookSpec = defineJobSpec({
  name: 'deliver-webhook',
  payload: z.object({ deliveryId: z.string().min(1) }),
  retryLimit: DELIVER_WEBHOOK_RETRY_LIMIT,
  retryDelaySeconds: 30,
  retryBackoff: true,
});

/** Pushes one lead into the agent's site (jobs/push-lead.ts); keyed per lead. */
export const pushLeadSpec = defineJobSpec({
  name: 'push-lead',
  payload: z.object({ leadId: z.string().min(1) }),
  policy: 'stately',
  retryLimit: PUSH_LEAD_RETRY_LIMIT,
  retryDelaySeconds: 20,
  retryBackoff: true,
});

/** Retries after the first attempt to send a mail; the mail is `failed` when the last one fails. */
export const SEND_MAIL_RETRY_LIMIT = 5;

/** Sends one stored mail (jobs/send-mail.ts); keyed per mail. */
export const sendMailSpec = defineJobSpec({
  name: 'send-mail',
  payload: z.object({ mailId: z.string().min(1) }),
  policy: 'stately',
  retryLimit: SEND_MAIL_RETRY_LIMIT,
  retryDelaySeconds: 15,
  retryBackoff: true,
});

/** Evaluates one run of an agent's golden set (jobs/evaluate-agent.ts); keyed per run. */
export const evaluateAgentSpec = defineJobSpec({
  name: 'evaluate-agent',
  payload: z.object({ runId: z.string().min(1) }),
  policy: 'stately',
  retryLimit: 1,
  retryDelaySeconds: 30,
  // Up to 500 questions, one search each.
  expireInSeconds: 30 * 60,
});

/**
 * Mails the operators of a handoff nobody claimed in time (jobs/handoff-mail.ts); sent with a
 * delay, keyed per handoff request. `consoleUrl` is the conversation's console page.
 */
export const handoffMailSpec = defineJobSpec({
  name: 'handoff-mail',
  payload: z.object({
    conversationId: z.string().min(1),
    requestedAt: z.iso.datetime(),
    consoleUrl: z.string().min(1).max(2048),
  }),
  policy: 'stately',
  retryLimit: 3,
  retryDelaySeconds: 30,
});

/**
 * The store's maintenance (jobs/maintain-store.ts): sent on a schedule, by `cli`, and when a
 * source finishes indexing (`indexed`: the tables it filled get their statistics and a vacuum
 * soon, not at the next scheduled run). Singleton: at most one runs at a time.
 */
export const maintainStoreSpec = defineJobSpec({
  name: 'maintain-store',
  payload: z.object({ reason: z.enum(['schedule', 'manual', 'indexed']) }),
  policy: 'singleton',
  retryLimit: 1,
  expireInSeconds: 60 * 60,
});
