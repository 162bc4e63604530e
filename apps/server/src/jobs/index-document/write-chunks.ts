import { sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import { sha256Hex } from '../../security/hashing.js';
import { newId } from '../../security/ids.js';

/**
 * Chunks written per statement (and per transaction when a document is written in batches).
 * Each statement binds one array per column, so the count never nears the protocol's 65,535
 * parameters; batches keep each write short, so other queries get the store in between.
 */
export const CHUNK_WRITE_BATCH = 500;

/** The document the chunks belong to, and the content hash they were cut from. */
export type ChunkTarget = {
  id: string;
  workspace_id: string;
  agent_id: string;
  content_hash: string;
};

/**
 * Inserts `pieces` as the document's chunks from ordinal `firstOrdinal` on, with their
 * full-text vectors, in one statement over `unnest` arrays (measured faster on PGlite than a
 * multi-row VALUES list). Rows are written only while the document still exists at
 * `target.content_hash`: a document changed or deleted meanwhile gets nothing (its next index
 * job starts over). Returns how many rows were written.
 */
export async function writeChunks(
  db: Queryable,
  target: ChunkTarget,
  regconfig: string,
  pieces: readonly string[],
  firstOrdinal: number,
): Promise<number> {
  if (pieces.length === 0) return 0;
  const ids = pieces.map(() => newId());
  const ordinals = pieces.map((_, index) => firstOrdinal + index);
  const hashes = pieces.map((piece) => sha256Hex(piece));
  const result = await sql`
    insert into chunks (id, workspace_id, agent_id, document_id, ordinal, content, content_hash, tsv)
    select u.id, ${target.workspace_id}, ${target.agent_id}, ${target.id}, u.ordinal, u.content, u.hash,
      to_tsvector(${regconfig}::regconfig, u.content)
    from unnest(${ids}::text[], ${ordinals}::int[], ${[...pieces]}::text[], ${hashes}::text[])
      as u(id, ordinal, content, hash)
    where exists (
      select 1 from documents d where d.id = ${target.id} and d.content_hash = ${target.content_hash})`.execute(
    db,
  );
  return Number(result.numAffectedRows ?? 0);
}
