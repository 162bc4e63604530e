import { createHash } from 'node:crypto';
import {
  type PostgresCursor,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
  type RawBuilder,
  sql,
} from 'kysely';
import type pg from 'pg';

/**
 * Named prepared statements for the few hot statements of a search, on the embedded store.
 *
 * A statement run the usual way (an unnamed statement) is parsed, analysed and planned every
 * time. For the ranking statement on the embedded store (PostgreSQL compiled to WebAssembly),
 * planning took longer than running it on a small agent (1.3–8.7 ms against 0.6–1.5 ms), and
 * ten questions asked together wait for each other's planning on its one backend. A statement
 * marked with {@link prepared} is sent as a named statement instead: parsed once per connection,
 * then bound and run, and after a few runs PostgreSQL may keep one generic plan for it
 * (plan_cache_mode auto chooses it only when it is estimated no worse than a custom one).
 * Values must then be parameters, never literals in the text, or each question would prepare
 * a new statement.
 *
 * Only the embedded store prepares: on PostgreSQL, planning is native and cheap, and a
 * connection pooler in transaction mode (PgBouncer) would lose named statements between
 * transactions.
 */

/** The comment a prepared statement's text starts with. */
export const PREPARE_MARK = '/* prepared */';

/** The mark as a query builder's front modifier: `db.selectFrom(…).modifyFront(PREPARED)…`. */
export const PREPARED = sql.raw(PREPARE_MARK);

/** Whether `text` is a statement marked by {@link prepared} or {@link PREPARED}. */
export function isMarked(text: string): boolean {
  return text.startsWith(PREPARE_MARK) || text.startsWith(`select ${PREPARE_MARK}`);
}

/** `statement`, marked to run as a named prepared statement where the pool prepares (see above). */
export function prepared<T>(statement: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`${sql.raw(PREPARE_MARK)} ${statement}`;
}

/**
 * How many named statements one connection keeps; the least recently used is deallocated past
 * it. A statement's text varies with the number of words of a question and the search's
 * settings, so a connection sees a few dozen at most in normal use.
 */
export const PREPARED_PER_CONNECTION = 64;

/** The named statements one connection has prepared, least recently used first. */
class Statements {
  private readonly names = new Map<string, string>();
  constructor(
    private readonly serial: number,
    private readonly capacity: number,
  ) {}

  /**
   * The statement's name for `text`, and the name to deallocate first when it is new and the
   * connection is full. Names carry the connection's serial: the embedded store's connections
   * share one backend session, where a name is visible to all of them.
   */
  nameFor(text: string): { name: string; evict: string | null } {
    const known = this.names.get(text);
    if (known) {
      this.names.delete(text);
      this.names.set(text, known);
      return { name: known, evict: null };
    }
    const hash = createHash('sha256').update(text).digest('hex').slice(0, 24);
    const name = `s${hash}_${this.serial}`;
    let evict: string | null = null;
    if (this.names.size >= this.capacity) {
      // A Map iterates in insertion order, and every use moves its entry to the end.
      for (const [oldestText, oldestName] of this.names) {
        this.names.delete(oldestText);
        evict = oldestName;
        break;
      }
    }
    this.names.set(text, name);
    return { name, evict };
  }
}

/** A pool client as Kysely uses it, running marked statements as named ones. */
class PreparingClient implements PostgresPoolClient {
  constructor(
    private readonly client: pg.PoolClient,
    private readonly statements: Statements,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    statement: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof statement !== 'string') {
      // Kysely's streaming (a cursor); not used with a prepared statement.
      return (this.client as unknown as PostgresPoolClient).query(statement);
    }
    // Kysely passes a fresh array for each query: no copy needed.
    const values = (parameters ?? []) as unknown[];
    if (!isMarked(statement)) {
      return this.client.query(statement, values) as unknown as Promise<PostgresQueryResult<R>>;
    }
    return this.run<R>(statement, values);
  }

  private async run<R>(text: string, values: unknown[]): Promise<PostgresQueryResult<R>> {
    const { name, evict } = this.statements.nameFor(text);
    if (evict !== null) await this.deallocate(evict);
    const result = await this.client.query({ name, text, values });
    return result as unknown as PostgresQueryResult<R>;
  }

  /** Frees a statement the connection no longer keeps, in the backend and in pg's own record. */
  private async deallocate(name: string): Promise<void> {
    await this.client.query(`deallocate "${name}"`);
    const connection = (
      this.client as unknown as { connection?: { parsedStatements?: Record<string, string> } }
    ).connection;
    if (connection?.parsedStatements) delete connection.parsedStatements[name];
  }

  release(): void {
    this.client.release();
  }
}

/**
 * `pool` for Kysely, with each connection running statements marked by {@link prepared} as
 * named prepared statements (at most `capacity` kept per connection).
 */
export function preparingPool(pool: pg.Pool, capacity = PREPARED_PER_CONNECTION): PostgresPool {
  const statements = new WeakMap<pg.PoolClient, Statements>();
  let serial = 0;
  return {
    async connect() {
      const client = await pool.connect();
      let own = statements.get(client);
      if (!own) {
        serial += 1;
        own = new Statements(serial, capacity);
        statements.set(client, own);
      }
      return new PreparingClient(client, own);
    },
    end: () => pool.end(),
  };
}
