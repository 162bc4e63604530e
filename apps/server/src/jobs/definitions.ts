import type { JobDefinition } from '../queue/job-queue.js';
import { deliverWebhookJob } from './deliver-webhook.js';
import { embedChunksJob } from './embed-chunks.js';
import { evaluateAgentJob } from './evaluate-agent.js';
import { fetchSourceJob } from './fetch-source/fetch-source.js';
import { handoffMailJob } from './handoff-mail.js';
import { indexDocumentJob } from './index-document.js';
import { maintainStoreJob } from './maintain-store.js';
import { pushLeadJob } from './push-lead.js';
import { sendMailJob } from './send-mail.js';

/**
 * Every job the worker runs. Capabilities add their definitions here (crawling, webhooks,
 * lead push, …); the queue declares each one at start.
 */
export const JOB_DEFINITIONS: readonly JobDefinition<unknown>[] = [
  indexDocumentJob,
  fetchSourceJob,
  embedChunksJob,
  deliverWebhookJob,
  pushLeadJob,
  maintainStoreJob,
  evaluateAgentJob,
  sendMailJob,
  handoffMailJob,
];
