import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { INTERACTIVE_BURST, type StoreLane, type StoreScheduling } from './store-messages.js';
import { leavesBackendIdle, queryMessage, StoreScheduler } from './store-scheduler.js';

/** A backend answer that ends with ReadyForQuery in `status` (I, T or E). */
function readyFor(status: 'I' | 'T' | 'E'): Uint8Array {
  return Uint8Array.of(0x5a, 0, 0, 0, 5, status.charCodeAt(0));
}

/** The text of a simple Query message. */
function textOf(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes.subarray(5, bytes.byteLength - 1));
}

/**
 * A scheduler over a recorded backend: each group is a Query whose text names its answer's
 * status after a colon (`a1:T` leaves a transaction open). Groups queued before `start()` wait.
 */
function harness(scheduling: StoreScheduling, graceMs = 0) {
  const ran: string[] = [];
  let gate: (() => void) | null = null;
  const opened = new Promise<void>((resolve) => {
    gate = resolve;
  });
  const scheduler = new StoreScheduler(
    async (bytes) => {
      await opened;
      const text = bytes[0] === 0x53 ? 'SYNC' : textOf(bytes);
      ran.push(text);
      const status = text.split(':')[1] ?? 'I';
      return readyFor(status === 'T' || status === 'E' ? status : 'I');
    },
    () => undefined,
    scheduling,
    (error) => {
      throw error;
    },
    graceMs,
  );
  const exec = (conn: number, lane: StoreLane, text: string) =>
    scheduler.exec(conn, lane, queryMessage(text));
  return { ran, exec, scheduler, start: () => gate?.() };
}

describe('store scheduler', () => {
  test('a ReadyForQuery of I frees the backend; T, E or no ReadyForQuery keeps it', () => {
    assert.equal(leavesBackendIdle(readyFor('I')), true);
    assert.equal(leavesBackendIdle(readyFor('T')), false);
    assert.equal(leavesBackendIdle(readyFor('E')), false);
    const parseComplete = Uint8Array.of(0x31, 0, 0, 0, 4);
    assert.equal(leavesBackendIdle(parseComplete), false);
    const notice = Uint8Array.of(0x4e, 0, 0, 0, 4);
    assert.equal(leavesBackendIdle(Uint8Array.of(...readyFor('I'), ...notice)), true);
  });

  test('a connection inside a transaction keeps the backend until it is idle again', async () => {
    const { ran, exec, scheduler, start } = harness('interactive-first');
    exec(1, 'background', 'begin:T');
    exec(2, 'interactive', 'other');
    start();
    await scheduler.idle();
    // Connection 1 is still in its transaction: connection 2 waits.
    assert.deepEqual(ran, ['begin:T']);
    exec(1, 'background', 'insert:T');
    exec(1, 'background', 'commit');
    await scheduler.idle();
    assert.deepEqual(ran, ['begin:T', 'insert:T', 'commit', 'other']);
  });

  test('interactive groups go first, at most a burst in a row while a background one waits', async () => {
    const { ran, exec, scheduler, start } = harness('interactive-first');
    // The first group is taken at once (the backend is free); the rest wait behind it.
    exec(200, 'interactive', 'first');
    exec(100, 'background', 'bg1');
    exec(101, 'background', 'bg2');
    for (let index = 0; index < INTERACTIVE_BURST + 2; index += 1) exec(index, 'interactive', `i${index}`);
    start();
    await scheduler.idle();
    const burst = Array.from({ length: INTERACTIVE_BURST }, (_, index) => `i${index}`);
    assert.deepEqual(ran, [
      'first',
      ...burst,
      'bg1',
      `i${INTERACTIVE_BURST}`,
      `i${INTERACTIVE_BURST + 1}`,
      'bg2',
    ]);
  });

  test('after an interactive group, a background one waits a moment for the next interactive statement', async () => {
    const { ran, exec, scheduler, start } = harness('interactive-first', 200);
    exec(1, 'interactive', 'first statement');
    exec(100, 'background', 'batch');
    start();
    await scheduler.idle();
    assert.deepEqual(ran, ['first statement'], 'the batch is held back');
    // The request's next statement, sent after it read the first answer.
    exec(1, 'interactive', 'second statement');
    await scheduler.idle();
    assert.deepEqual(ran, ['first statement', 'second statement']);
    // No more interactive work: the batch runs once the pause is over.
    for (let tries = 0; tries < 100 && ran.length < 3; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(ran, ['first statement', 'second statement', 'batch']);
  });

  test('fifo runs groups in arrival order', async () => {
    const { ran, exec, scheduler, start } = harness('fifo');
    exec(200, 'interactive', 'first');
    exec(100, 'background', 'bg1');
    exec(1, 'interactive', 'i1');
    exec(101, 'background', 'bg2');
    start();
    await scheduler.idle();
    assert.deepEqual(ran, ['first', 'bg1', 'i1', 'bg2']);
  });

  test('a connection that ends inside a transaction is synced and rolled back, and frees the backend', async () => {
    const { ran, exec, scheduler, start } = harness('interactive-first');
    exec(1, 'interactive', 'begin:T');
    exec(2, 'interactive', 'after');
    start();
    await scheduler.idle();
    scheduler.end(1);
    await scheduler.idle();
    // The recorded backend answers SYNC with I; a real one in a transaction says T and gets ROLLBACK.
    assert.deepEqual(ran, ['begin:T', 'SYNC', 'after']);
  });
});
