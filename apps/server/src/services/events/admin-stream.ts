import { randomUUID } from 'node:crypto';
import type { TAdminEvent } from '@service/contract';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { DB } from '../../db/schema.js';
import { canResumeAfter, eventsAfter, eventsNear } from './admin-events.js';
import type { AdminEventHub } from './event-hub.js';
import { operatorsOnline, PRESENCE_HEARTBEAT_MS, removePresence, touchPresence } from './presence.js';

/** Live events waiting for a stream to take them; beyond this the client is too slow and is dropped. */
export const STREAM_PENDING_MAX = 1000;
/** Stored events read per query while replaying. */
const REPLAY_PAGE = 500;
/** Ids a stream remembers having sent, so a repeat is skipped (the oldest forgotten first). */
const SENT_IDS_KEPT = 4096;

/** The ids a stream has sent, the most recent {@link SENT_IDS_KEPT} of them. */
class SentIds {
  private readonly ids = new Set<string>();
  has(id: string): boolean {
    return this.ids.has(id);
  }
  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > SENT_IDS_KEPT) {
      const oldest = this.ids.values().next().value;
      if (oldest !== undefined) this.ids.delete(oldest);
    }
  }
}

/** What one admin stream needs. */
export type AdminStreamOptions = {
  db: Kysely<DB>;
  clock: Clock;
  hub: AdminEventHub;
  workspaceId: string;
  /** The user counted as an operator online while the stream is open; null when the caller may not reply. */
  operatorUserId: string | null;
  /** Replay stored events after this id first (Last-Event-ID); null: live events only. */
  lastEventId: string | null;
  send(event: TAdminEvent): void;
  signal: AbortSignal;
};

/**
 * Runs one admin stream until `signal` aborts: subscribes to the workspace's live events first
 * (so none falls between replay and live), sends `stream.ready` with the operators online, then
 * replays the stored events after `lastEventId` (or `stream.reset` when they are no longer all
 * kept), then live events as they are committed, skipping stored ones already sent. Event ids
 * follow insert order, not commit order, so a lower id can be committed after a higher one: live
 * events are told apart by the ids sent (never by "below the highest"), and a replay also sends
 * the late commits it finds near its starting id. While open, an operator's
 * presence is refreshed every heartbeat. A client that lets more than {@link STREAM_PENDING_MAX}
 * events pile up is dropped (the promise resolves; the client reconnects and resumes).
 */
export async function runAdminStream(options: AdminStreamOptions): Promise<void> {
  const { db, clock, workspaceId, signal } = options;
  const pending: TAdminEvent[] = [];
  let gap = false;
  let overflow = false;
  let wake: (() => void) | null = null;
  const nudge = () => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };
  signal.addEventListener('abort', nudge, { once: true });
  const unsubscribe = await options.hub.subscribe(workspaceId, {
    onEvent(event) {
      if (pending.length >= STREAM_PENDING_MAX) overflow = true;
      else pending.push(event);
      nudge();
    },
    onGap() {
      gap = true;
      nudge();
    },
  });
  const streamId = randomUUID();
  const heartbeat = async () => {
    if (options.operatorUserId === null || signal.aborted) return;
    await touchPresence(db, { streamId, workspaceId, userId: options.operatorUserId, now: clock.now() });
  };
  const timer = setInterval(() => {
    heartbeat().catch(() => undefined);
  }, PRESENCE_HEARTBEAT_MS);
  timer.unref();
  try {
    await heartbeat();
    const now = clock.now();
    options.send({
      type: 'stream.ready',
      id: null,
      at: now.toISOString(),
      operators_online: await operatorsOnline(db, workspaceId, now),
    });
    const sent = new SentIds();
    /** The highest id sent: where the next replay starts. */
    let lastId: bigint | null = null;
    const sendStored = (event: TAdminEvent) => {
      if (event.id === null || sent.has(event.id)) return;
      sent.add(event.id);
      const id = BigInt(event.id);
      if (lastId === null || id > lastId) lastId = id;
      options.send(event);
    };
    const replay = async (from: string) => {
      // Late commits first: events stored just before `from` that may have been committed after it.
      for (const event of await eventsNear(db, workspaceId, from)) {
        if (signal.aborted) return;
        sendStored(event);
      }
      let after = from;
      for (;;) {
        const events = await eventsAfter(db, workspaceId, after, REPLAY_PAGE);
        for (const event of events) {
          if (signal.aborted) return;
          sendStored(event);
          after = event.id ?? after;
        }
        if (events.length < REPLAY_PAGE) return;
      }
    };
    if (options.lastEventId !== null) {
      if (await canResumeAfter(db, options.lastEventId)) {
        lastId = BigInt(options.lastEventId);
        await replay(options.lastEventId);
      } else {
        options.send({ type: 'stream.reset', id: null, at: clock.now().toISOString() });
      }
    }
    while (!signal.aborted && !overflow) {
      if (gap) {
        gap = false;
        // Notifications may have been lost while the listener reconnected: read what was stored.
        if (lastId !== null) await replay(String(lastId));
      }
      const event = pending.shift();
      if (!event) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      if (event.id === null) options.send(event);
      else sendStored(event);
    }
  } finally {
    clearInterval(timer);
    unsubscribe();
    if (options.operatorUserId !== null) await removePresence(db, streamId).catch(() => undefined);
  }
}
