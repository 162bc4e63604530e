import { sql } from 'kysely';
import type { Queryable } from '../db/queryable.js';

/** Postgres text-search configurations by language code; anything else uses `simple`. */
const TS_CONFIGS: Record<string, string> = {
  ar: 'arabic',
  da: 'danish',
  de: 'german',
  el: 'greek',
  en: 'english',
  es: 'spanish',
  fi: 'finnish',
  fr: 'french',
  hu: 'hungarian',
  id: 'indonesian',
  it: 'italian',
  nb: 'norwegian',
  nl: 'dutch',
  nn: 'norwegian',
  no: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sv: 'swedish',
  tr: 'turkish',
};

let installedConfigs: Promise<Set<string>> | null = null;

/** The text-search configuration for a document language, if this database has it. */
export async function textSearchConfig(db: Queryable, language: string | null): Promise<string> {
  const wanted = language ? TS_CONFIGS[language.split('-')[0] ?? ''] : undefined;
  if (!wanted) return 'simple';
  installedConfigs ??= sql<{ cfgname: string }>`select cfgname from pg_ts_config`
    .execute(db)
    .then((result) => new Set(result.rows.map((row) => row.cfgname)));
  return (await installedConfigs).has(wanted) ? wanted : 'simple';
}
