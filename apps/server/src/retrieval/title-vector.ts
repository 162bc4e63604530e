import { type RawBuilder, sql } from 'kysely';

/**
 * A document's title and the words of its URL path as one full-text vector in `config`: the
 * ranking's title/URL field. Written when the document is indexed (`documents.title_tsv`), in
 * the configuration of its chunks; built the same way at query time for a document indexed
 * before the column existed.
 */
export function titleVector(
  config: string,
  title: RawBuilder<unknown>,
  url: RawBuilder<unknown>,
): RawBuilder<string> {
  return sql<string>`to_tsvector(${config}::regconfig, coalesce(${title}, '') || ' ' ||
    regexp_replace(regexp_replace(coalesce(${url}, ''), '^[a-z]+://[^/]*', ''), '[^[:alnum:]]+', ' ', 'g'))`;
}
