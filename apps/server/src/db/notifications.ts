import pg from 'pg';

/** Called with each payload notified on a channel. */
export type NotificationHandler = (payload: string) => void;

/**
 * `LISTEN` for both stores behind one call. On PostgreSQL one dedicated connection per service
 * instance listens (so a NOTIFY committed by any instance reaches every instance), and reconnects
 * after a loss; on the embedded store the one backend session listens and the store's
 * connections hand over the NotificationResponse messages they read (worker-connection.ts).
 */
export type StoreNotifications = {
  /**
   * Calls `handler` with each payload notified on `channel` after this resolves. `onGap` is called
   * when notifications may have been missed (the PostgreSQL listener reconnected). Returns the
   * unsubscribe function.
   */
  listen(channel: string, handler: NotificationHandler, onGap?: () => void): Promise<() => void>;
  close(): Promise<void>;
};

type Log = { warn(msg: string): void };

/** How long the PostgreSQL listener waits before reconnecting, in milliseconds (doubling up to the max). */
export const LISTEN_RECONNECT_MS = 250;
export const LISTEN_RECONNECT_MAX_MS = 5_000;

/** Channel names are identifiers we choose; anything else is refused before it reaches SQL. */
function checkChannel(channel: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
  return channel;
}

/** The subscribers of each channel, shared by both implementations. */
class Channels {
  readonly handlers = new Map<string, Set<{ handler: NotificationHandler; onGap?: () => void }>>();

  add(channel: string, entry: { handler: NotificationHandler; onGap?: () => void }): () => void {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(entry);
    return () => set.delete(entry);
  }

  deliver(channel: string, payload: string): void {
    for (const entry of this.handlers.get(channel) ?? []) {
      try {
        entry.handler(payload);
      } catch {
        // One subscriber's failure must not keep the payload from the others.
      }
    }
  }

  gap(): void {
    for (const set of this.handlers.values()) for (const entry of set) entry.onGap?.();
  }
}

/**
 * The embedded store's notifications: `runListen` issues `LISTEN` on the shared backend once per
 * channel; `deliver` is fed by the store's connections with every notification they read.
 */
export function embeddedNotifications(runListen: (sql: string) => Promise<unknown>): StoreNotifications & {
  deliver(channel: string, payload: string): void;
} {
  const channels = new Channels();
  const listening = new Map<string, Promise<unknown>>();
  return {
    async listen(channel, handler, onGap) {
      checkChannel(channel);
      let started = listening.get(channel);
      if (!started) {
        started = runListen(`listen ${channel}`);
        listening.set(channel, started);
      }
      await started;
      return channels.add(channel, onGap ? { handler, onGap } : { handler });
    },
    deliver: (channel, payload) => channels.deliver(channel, payload),
    async close() {
      channels.handlers.clear();
    },
  };
}

/** PostgreSQL's notifications: one dedicated client, reconnecting with backoff after a loss. */
export function postgresNotifications(url: string, log: Log): StoreNotifications {
  const channels = new Channels();
  let client: pg.Client | null = null;
  let connecting: Promise<void> | null = null;
  let closed = false;
  let delay = LISTEN_RECONNECT_MS;
  let retry: NodeJS.Timeout | null = null;

  const connect = (): Promise<void> => {
    if (connecting !== null) return connecting;
    connecting = (async () => {
      const next = new pg.Client({ connectionString: url });
      next.on('notification', (message) => channels.deliver(message.channel, message.payload ?? ''));
      const lost = (error?: Error) => {
        if (client !== next) return;
        client = null;
        connecting = null;
        next.removeAllListeners('end');
        void next.end().catch(() => undefined);
        if (closed) return;
        log.warn(`event listener connection lost${error ? `: ${error.message}` : ''}; reconnecting`);
        scheduleRetry();
      };
      next.on('error', lost);
      next.on('end', () => lost());
      await next.connect();
      for (const channel of channels.handlers.keys()) await next.query(`listen ${checkChannel(channel)}`);
      client = next;
      delay = LISTEN_RECONNECT_MS;
    })();
    connecting.catch(() => {
      connecting = null;
    });
    return connecting;
  };

  const scheduleRetry = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      connect().then(
        // Whatever was notified while no connection listened is lost: subscribers catch up.
        () => channels.gap(),
        (error: Error) => {
          log.warn(`event listener could not reconnect: ${error.message}`);
          delay = Math.min(delay * 2, LISTEN_RECONNECT_MAX_MS);
          scheduleRetry();
        },
      );
    }, delay);
    retry.unref();
  };

  return {
    async listen(channel, handler, onGap) {
      checkChannel(channel);
      const isNew = !channels.handlers.has(channel);
      const remove = channels.add(channel, onGap ? { handler, onGap } : { handler });
      try {
        if (!client) await connect();
        else if (isNew) await client.query(`listen ${channel}`);
      } catch (error) {
        remove();
        throw error;
      }
      return remove;
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      channels.handlers.clear();
      const current = client;
      client = null;
      if (current) {
        current.removeAllListeners('end');
        await current.end().catch(() => undefined);
      }
    },
  };
}
