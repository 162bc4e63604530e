import {
  INTERACTIVE_BURST,
  INTERACTIVE_GRACE_MS,
  type StoreLane,
  type StoreScheduling,
} from './store-messages.js';

/** Runs raw frontend bytes on the one backend and returns its raw answer. */
export type RunProtocol = (bytes: Uint8Array) => Promise<Uint8Array>;

type Group = { conn: number; lane: StoreLane; bytes: Uint8Array; arrival: number };

/** A Sync message (`S`, length 4): ends an extended-protocol group. */
const SYNC = Uint8Array.of(0x53, 0, 0, 0, 4);
/** A simple-protocol `ROLLBACK`. */
const ROLLBACK = queryMessage('ROLLBACK');

/**
 * Shares the embedded store's one backend between many connections. Each `exec` is a whole group
 * (an extended-protocol batch up to Sync, or a simple Query) and runs alone; a connection whose
 * group leaves the backend anywhere but idle (inside a transaction, failed transaction, a pending
 * extended batch, or COPY) keeps it pinned, and only its own groups run until it is idle again.
 * With one backend session, interleaving two connections' statements would run them in each
 * other's transactions, or bind one's parameters to the other's statement.
 */
export class StoreScheduler {
  private readonly waiting: Group[] = [];
  private pinned: number | null = null;
  private current: number | null = null;
  private running: Promise<void> | null = null;
  private arrivals = 0;
  private interactiveStreak = 0;
  /** When the last interactive group finished (`performance.now()`), and the timer waiting out its grace. */
  private lastInteractive = Number.NEGATIVE_INFINITY;
  private graceTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly ended = new Set<number>();

  constructor(
    private readonly run: RunProtocol,
    private readonly reply: (conn: number, bytes: Uint8Array) => void,
    private readonly scheduling: StoreScheduling,
    private readonly onFatal: (error: unknown) => void,
    private readonly graceMs: number = INTERACTIVE_GRACE_MS,
  ) {}

  /** Queues a group of `conn`'s messages. */
  exec(conn: number, lane: StoreLane, bytes: Uint8Array): void {
    this.waiting.push({ conn, lane, bytes, arrival: this.arrivals++ });
    this.pump();
  }

  /** `conn` closed: drops its waiting groups; if it held the backend, ends its batch and transaction. */
  end(conn: number): void {
    for (let index = this.waiting.length - 1; index >= 0; index -= 1) {
      if (this.waiting[index]?.conn === conn) this.waiting.splice(index, 1);
    }
    if (this.pinned !== conn && this.current !== conn) return;
    this.ended.add(conn);
    this.pump();
  }

  /**
   * Resolves once no group can run: none waits, or only groups behind a connection that holds the
   * backend and has sent nothing more (before a dump or closing the store).
   */
  async idle(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  private pump(): void {
    if (this.running !== null) return;
    this.running = this.loop().then(
      () => {
        this.running = null;
      },
      (error: unknown) => {
        this.running = null;
        this.onFatal(error);
      },
    );
  }

  private async loop(): Promise<void> {
    for (;;) {
      if (this.pinned !== null && this.ended.has(this.pinned)) {
        await this.release(this.pinned);
        continue;
      }
      const group = this.next();
      if (!group) return;
      this.current = group.conn;
      const answer = await this.run(group.bytes);
      this.current = null;
      if (group.lane === 'interactive') this.lastInteractive = performance.now();
      this.pinned = leavesBackendIdle(answer) ? null : group.conn;
      if (this.pinned === null) this.ended.delete(group.conn);
      this.reply(group.conn, answer);
    }
  }

  /** Ends a closed connection's pending batch and rolls back its transaction, then frees the backend. */
  private async release(conn: number): Promise<void> {
    this.ended.delete(conn);
    const synced = await this.run(SYNC);
    if (!leavesBackendIdle(synced)) await this.run(ROLLBACK);
    this.pinned = null;
  }

  /** The next group to run, taken out of the waiting list; none while a pinned connection has none. */
  private next(): Group | undefined {
    let index = -1;
    if (this.pinned !== null) {
      index = this.waiting.findIndex((group) => group.conn === this.pinned);
    } else if (this.scheduling === 'fifo') {
      index = this.waiting.length > 0 ? 0 : -1;
    } else {
      const interactive = this.waiting.findIndex((group) => group.lane === 'interactive');
      const background = this.waiting.findIndex((group) => group.lane === 'background');
      if (interactive >= 0 && (background < 0 || this.interactiveStreak < INTERACTIVE_BURST)) {
        index = interactive;
        this.interactiveStreak = background < 0 ? 0 : this.interactiveStreak + 1;
      } else if (background >= 0) {
        const wait = this.lastInteractive + this.graceMs - performance.now();
        if (interactive < 0 && wait > 0 && this.interactiveStreak < INTERACTIVE_BURST) {
          // A request may be about to send its next statement: give it a moment first.
          this.graceTimer ??= setTimeout(() => {
            this.graceTimer = null;
            this.pump();
          }, wait);
          return undefined;
        }
        index = background;
        this.interactiveStreak = 0;
      }
    }
    if (index < 0) return undefined;
    return this.waiting.splice(index, 1)[0];
  }
}

/**
 * Whether the backend is idle after `answer`: its last ReadyForQuery says `I` and nothing but
 * notices, notifications and parameter reports follows it. Anything else (a `T`/`E` transaction
 * status, a batch not yet synced, COPY) pins the backend to the connection.
 */
export function leavesBackendIdle(answer: Uint8Array): boolean {
  let status: number | null = null;
  let offset = 0;
  const view = new DataView(answer.buffer, answer.byteOffset, answer.byteLength);
  while (offset + 5 <= answer.byteLength) {
    const type = answer[offset];
    const length = view.getInt32(offset + 1);
    if (type === 0x5a)
      status = answer[offset + 5] ?? null; // 'Z' ReadyForQuery
    else if (type !== 0x4e && type !== 0x41 && type !== 0x53) status = null; // not N, A, S
    offset += 1 + length;
  }
  return status === 0x49; // 'I'
}

/** A simple-protocol Query message for `text`. */
export function queryMessage(text: string): Uint8Array {
  const body = new TextEncoder().encode(`${text}\0`);
  const message = new Uint8Array(5 + body.byteLength);
  message[0] = 0x51; // 'Q'
  new DataView(message.buffer).setInt32(1, 4 + body.byteLength);
  message.set(body, 5);
  return message;
}
