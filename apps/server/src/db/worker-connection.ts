import { EventEmitter } from 'node:events';
import { serialize } from 'pg-protocol';
import { Parser } from 'pg-protocol/dist/parser.js';
import type { StoreLane } from './store-messages.js';

/** How a {@link WorkerConnection} reaches the store thread (embedded-store.ts). */
export type StoreLink = {
  /** Posts one group of frontend messages; its answer comes back through `attach`'s `onAnswer`. */
  send(conn: number, lane: StoreLane, bytes: Uint8Array<ArrayBuffer>): void;
  /** Tells the thread the connection closed (its open transaction is rolled back there). */
  end(conn: number): void;
  /** Registers a connection; returns its id. `fail` is called if the store stops. */
  attach(handlers: { onAnswer(bytes: Uint8Array): void; fail(error: Error): void }): number;
  detach(conn: number): void;
  /** Set once the store thread has stopped; new connections fail with it. */
  readonly failure: Error | null;
  /** A NotificationResponse read from the shared backend's answer (db/notifications.ts). */
  notify(channel: string, payload: string): void;
};

type Opts<K extends keyof typeof serialize> = Parameters<(typeof serialize)[K]>[0];

/**
 * What `pg`'s Client expects of its connection, over the embedded store's thread instead of a
 * socket (modelled on PGlite's `PglitePgConnection`). Frontend messages are serialized with
 * pg-protocol and gathered until a Sync, Query or Flush, then posted to the thread as one group
 * (the bytes moved, not copied); the answer's bytes are parsed with pg-protocol's Parser and
 * emitted as the events the Client listens to, as pg's own Connection does.
 */
export class WorkerConnection extends EventEmitter {
  /** Checked by pg's Client.end(), which skips connection.end() without it. */
  _connecting = false;
  /** pg's Client destroys the stream when it ends with a query still active. */
  readonly stream = { destroy: () => this.end(), writable: true };
  /** pg's Client records named statements here (they live in the one backend session). */
  parsedStatements: Record<string, string> = {};
  submittedNamedStatements: Record<string, string> = {};

  private readonly parser = new Parser();
  private pending: Buffer[] = [];
  private conn: number | null = null;
  private ended = false;
  private emitMessage = false;

  constructor(
    private readonly link: StoreLink,
    private readonly lane: StoreLane,
  ) {
    super();
    this.on('newListener', (event) => {
      if (event === 'message') this.emitMessage = true;
    });
  }

  connect(_port?: unknown, _host?: unknown): void {
    this._connecting = true;
    process.nextTick(() => {
      const failure = this.link.failure;
      if (failure) {
        this.emit('error', failure);
        return;
      }
      this.conn = this.link.attach({
        onAnswer: (bytes) => this.answer(bytes),
        fail: (error) => this.fail(error),
      });
      // No startup exchange: the thread's backend is already up, as with PGlite's connection.
      this.emit('readyForQuery', { name: 'readyForQuery', length: 5, status: 'I' });
    });
  }

  query(text: string): void {
    this.add(serialize.query(text), true);
  }
  parse(query: Opts<'parse'>): void {
    this.add(serialize.parse(query), false);
  }
  bind(config: Opts<'bind'>): void {
    this.add(serialize.bind(config), false);
  }
  execute(config: Opts<'execute'>): void {
    this.add(serialize.execute(config), false);
  }
  describe(msg: Opts<'describe'>): void {
    this.add(serialize.describe(msg), false);
  }
  close(msg: Opts<'close'>): void {
    this.add(serialize.close(msg), false);
  }
  flush(): void {
    this.add(serialize.flush(), true);
  }
  sync(): void {
    this.add(serialize.sync(), true);
  }
  sendCopyFromChunk(chunk: Buffer): void {
    this.add(serialize.copyData(chunk), true);
  }
  endCopyFrom(): void {
    this.add(serialize.copyDone(), true);
  }
  sendCopyFail(message: string): void {
    this.add(serialize.copyFail(message), true);
  }

  // A socket's concerns, with no socket: nothing to do.
  requestSsl(): void {}
  startup(_config: unknown): void {}
  cancel(_processId: unknown, _secretKey: unknown): void {}
  password(_password: unknown): void {}
  sendSASLInitialResponseMessage(_mechanism: unknown, _response: unknown): void {}
  sendSCRAMClientFinalMessage(_data: unknown): void {}
  ref(): void {}
  unref(): void {}

  /** Like a socket closing: the thread drops this connection (rolling back its transaction); pg waits for 'end'. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.stream.writable = false;
    this.pending = [];
    if (this.conn !== null) {
      this.link.end(this.conn);
      this.link.detach(this.conn);
    }
    process.nextTick(() => this.emit('end'));
  }

  private add(message: Buffer, endsGroup: boolean): void {
    if (this.ended) return;
    this.pending.push(message);
    if (!endsGroup || this.conn === null) return;
    // One fresh buffer for the group: serialize's buffers may share Node's pool, and moving a
    // view's buffer would move (and detach) the whole pool.
    let size = 0;
    for (const part of this.pending) size += part.byteLength;
    const bytes = new Uint8Array(size);
    let offset = 0;
    for (const part of this.pending) {
      bytes.set(part, offset);
      offset += part.byteLength;
    }
    this.pending = [];
    this.link.send(this.conn, this.lane, bytes);
  }

  private answer(bytes: Uint8Array): void {
    if (this.ended) return;
    this.parser.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), (message) => {
      if (this.emitMessage) this.emit('message', message);
      // The backend is shared: a NOTIFY any connection commits comes back in that connection's answer.
      if (message.name === 'notification') {
        const { channel, payload } = message as unknown as { channel: string; payload: string };
        this.link.notify(channel, payload);
      }
      // pg's Client listens for ErrorResponse as 'errorMessage'.
      this.emit(message.name === 'error' ? 'errorMessage' : message.name, message);
    });
  }

  /** The store stopped: every query of this connection fails with `error`, then it ends. */
  private fail(error: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.stream.writable = false;
    this.emit('error', error);
    process.nextTick(() => this.emit('end'));
  }
}
