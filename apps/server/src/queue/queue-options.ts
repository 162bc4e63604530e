import type PgBoss from 'pg-boss';
import { deadLetterQueueOf } from './job-failures.js';
import type { JobDefinition, JobSpec } from './job-queue.js';

/** A queue's expiry: the longest one run may take (pg-boss's worker gives up on it then). */
export function expiryOf(definition: JobSpec<unknown>): number {
  return definition.expireInSeconds ?? 15 * 60;
}

/** How long settling one dead-letter entry may take (its queue's expiry). */
export const DEAD_LETTER_EXPIRY_SECONDS = 15 * 60;

/**
 * Creates (or updates) a job's pg-boss queue with its spec's retry policy and expiry. A job with
 * something to settle when it fails for good (`giveUp`) also gets its dead-letter queue, created
 * first since the job's queue refers to it.
 */
export async function declareQueue(boss: PgBoss, definition: JobDefinition<unknown>): Promise<void> {
  const deadLetter = definition.giveUp ? deadLetterQueueOf(definition.name) : undefined;
  if (deadLetter) {
    const deadOptions = {
      name: deadLetter,
      retryLimit: 5,
      retryDelay: 10,
      retryBackoff: true,
      expireInSeconds: DEAD_LETTER_EXPIRY_SECONDS,
    };
    await boss.createQueue(deadLetter, deadOptions);
    await boss.updateQueue(deadLetter, deadOptions);
  }
  const queueOptions = {
    name: definition.name,
    policy: definition.policy ?? 'standard',
    retryLimit: definition.retryLimit ?? 5,
    retryDelay: definition.retryDelaySeconds ?? 10,
    retryBackoff: definition.retryBackoff ?? true,
    expireInSeconds: expiryOf(definition),
    ...(deadLetter ? { deadLetter } : {}),
  };
  await boss.createQueue(definition.name, queueOptions);
  await boss.updateQueue(definition.name, queueOptions);
}

/**
 * The queues of `definitions` with their expiry (the longest one run may take): each job's own,
 * and the dead-letter queue of each job with something to settle when it fails for good.
 */
export function leasedQueuesOf(
  definitions: Iterable<JobDefinition<unknown>>,
): Array<{ name: string; maxSeconds: number }> {
  return [...definitions].flatMap((definition) => [
    { name: definition.name, maxSeconds: expiryOf(definition) },
    ...(definition.giveUp
      ? [{ name: deadLetterQueueOf(definition.name), maxSeconds: DEAD_LETTER_EXPIRY_SECONDS }]
      : []),
  ]);
}
