import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.js';

/** A query handle: the database or an open transaction. */
export type Queryable = Kysely<DB> | Transaction<DB>;
