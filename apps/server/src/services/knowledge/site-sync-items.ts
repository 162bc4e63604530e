import { normalizeSiteUrl, type TPost, type TProduct, type TSyncFailure } from '@service/contract';
import { type Kysely, sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import type { DB } from '../../db/schema.js';
import { notFound } from '../../errors/app-error.js';
import { HtmlTextError } from '../../extraction/extraction-pool.js';
import { extractionPool } from '../../extraction/shared-extraction-pool.js';
import type { IncomingDocument, IncomingItem } from './documents.js';

/**
 * A synced post or product as received: its id and hash, its HTML fields, and how to build its
 * document from their text (in the same order).
 */
export type SyncRecord = {
  wpId: number;
  externalId: string;
  hash: string;
  html: string[];
  build(texts: readonly string[]): IncomingDocument;
};

/** A batch's records after conversion: each record's document, or why its HTML has no text. */
export type ConvertedBatch = {
  /** The batch's distinct records (the same wp_id twice: the last one wins). */
  records: SyncRecord[];
  documents: Map<string, IncomingDocument>;
  failures: Map<string, string>;
};

/** Which records to store, which are unchanged, and which failed, decided inside the transaction. */
export type SettledBatch = { changed: IncomingItem[]; unchanged: number; failures: TSyncFailure[] };

/** Where a sync writes: the agent's source of a type for a site, as `prepare` resolves it. */
type SourceKey = { workspaceId: string; agentId: string; type: 'site' | 'products'; siteUrl: string };

/**
 * Converts the HTML of the records whose hash differs from the stored one (or that are new) in
 * the process's extraction pool, before any write transaction, so neither a large body nor deeply
 * nested markup runs on the request thread. One task per record: a record that overruns a limit
 * fails alone. Records are read again inside the transaction (`settleBatch`). An agent that is
 * not the caller's is a 404 before any conversion.
 */
export async function convertChangedRecords(
  db: Kysely<DB>,
  key: SourceKey,
  all: readonly SyncRecord[],
): Promise<ConvertedBatch> {
  const records = [...new Map(all.map((record) => [record.externalId, record])).values()];
  const stored = await storedHashes(db, key, records);
  const documents = new Map<string, IncomingDocument>();
  const failures = new Map<string, string>();
  const pool = extractionPool();
  await Promise.all(
    records
      .filter((record) => stored.get(record.externalId) !== record.hash)
      .map(async (record) => {
        try {
          documents.set(record.externalId, record.build(await pool.htmlToTexts(record.html)));
        } catch (error) {
          if (!(error instanceof HtmlTextError)) throw error;
          failures.set(record.externalId, `its HTML ${error.message}`);
        }
      }),
  );
  return { records, documents, failures };
}

/**
 * Inside the write transaction: records whose hash equals the stored one are unchanged; changed
 * ones are stored with the document converted beforehand; a changed one whose HTML failed is
 * reported, and so is one that changed since the conversion (another sync stored it meanwhile;
 * sending it again settles it), never converted here on the request thread.
 */
export async function settleBatch(
  trx: Queryable,
  sourceId: string,
  batch: ConvertedBatch,
): Promise<SettledBatch> {
  const ids = batch.records.map((record) => record.externalId);
  const rows =
    ids.length === 0
      ? []
      : await trx
          .selectFrom('documents')
          .select(['external_id', 'content_hash'])
          .where('source_id', '=', sourceId)
          .where(sql<boolean>`external_id = any(${ids}::text[])`)
          .execute();
  const stored = new Map(rows.map((row) => [row.external_id, row.content_hash]));
  const settled: SettledBatch = { changed: [], unchanged: 0, failures: [] };
  for (const record of batch.records) {
    if (stored.get(record.externalId) === record.hash) {
      settled.unchanged += 1;
      continue;
    }
    const document = batch.documents.get(record.externalId);
    if (document) {
      settled.changed.push({ externalId: record.externalId, hash: record.hash, toDocument: () => document });
      continue;
    }
    const reason =
      batch.failures.get(record.externalId) ??
      'it changed on the service while this batch was converted; send it again';
    settled.failures.push({ wp_id: record.wpId, reason });
  }
  return settled;
}

/**
 * The stored hashes of `records` on the source `key` names (none when it does not exist yet), in
 * one statement that also finds the agent: 404 when it is not the caller's, before any work.
 */
async function storedHashes(
  db: Kysely<DB>,
  key: SourceKey,
  records: readonly SyncRecord[],
): Promise<Map<string, string>> {
  const ids = records.map((record) => record.externalId);
  const rows = await db
    .selectFrom('agents')
    .leftJoin('sources', (join) =>
      join
        .onRef('sources.agent_id', '=', 'agents.id')
        .on('sources.type', '=', key.type)
        .on('sources.site_url', '=', normalizeSiteUrl(key.siteUrl)),
    )
    .leftJoin('documents', (join) =>
      join
        .onRef('documents.source_id', '=', 'sources.id')
        .on(sql<boolean>`documents.external_id = any(${ids}::text[])`),
    )
    .select(['documents.external_id', 'documents.content_hash'])
    .where('agents.workspace_id', '=', key.workspaceId)
    .where('agents.id', '=', key.agentId)
    .execute();
  if (rows.length === 0) throw notFound();
  const stored = new Map<string, string>();
  for (const row of rows) {
    if (row.external_id !== null && row.content_hash !== null) stored.set(row.external_id, row.content_hash);
  }
  return stored;
}

/** A post as a record: its body and excerpt are the HTML to convert. */
export function postRecord(post: TPost): SyncRecord {
  return {
    wpId: post.wp_id,
    externalId: String(post.wp_id),
    hash: post.content_hash.toLowerCase(),
    html: [post.content_html, post.excerpt],
    build: ([body = '', excerpt = '']) => ({
      externalId: String(post.wp_id),
      kind: 'post',
      title: post.title,
      url: post.permalink,
      language: post.language ?? null,
      text: [post.title, excerpt && excerpt !== body ? excerpt : '', body].filter(Boolean).join('\n\n'),
      hash: post.content_hash.toLowerCase(),
      metadata: { post_type: post.post_type, excerpt: post.excerpt, taxonomy_terms: post.taxonomy_terms },
      modifiedAt: post.modified_at,
    }),
  };
}

/** A product as a record: its short description and description are the HTML to convert. */
export function productRecord(product: TProduct): SyncRecord {
  const price = product.price
    ? `${product.price}${product.currency ? ` ${product.currency.toUpperCase()}` : ''}`
    : '';
  return {
    wpId: product.wp_id,
    externalId: String(product.wp_id),
    hash: product.content_hash.toLowerCase(),
    html: [product.short_description, product.description],
    build: ([shortDescription = '', description = '']) => ({
      externalId: String(product.wp_id),
      kind: 'product',
      title: product.name,
      url: product.permalink,
      language: null,
      text: [
        product.name,
        shortDescription,
        description,
        product.categories.length > 0 ? `Categories: ${product.categories.join(', ')}` : '',
        ...product.attributes,
        price
          ? `Price: ${price}${product.on_sale && product.regular_price ? ` (regular ${product.regular_price})` : ''}`
          : '',
        `Stock: ${product.stock_status}`,
        product.sku ? `SKU: ${product.sku}` : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
      hash: product.content_hash.toLowerCase(),
      metadata: {
        sku: product.sku,
        image_url: product.image_url,
        price: product.price,
        regular_price: product.regular_price,
        sale_price: product.sale_price,
        currency: product.currency ?? null,
        stock_status: product.stock_status,
        on_sale: product.on_sale,
        categories: product.categories,
        attributes: product.attributes,
      },
      modifiedAt: product.modified_at,
    }),
  };
}
