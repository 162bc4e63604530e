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

/**
 * The configurations each database has, keyed by its Kysely adapter: one object per Kysely
 * instance, shared by its transactions and plugins, so a job's `trx` and the search's `db`
 * share one entry and two databases in one process never share one. Only a successful read
 * is kept: a failed one (a database restarting) is forgotten, and the next call asks again.
 */
const installedConfigs = new WeakMap<object, Promise<Set<string>>>();

function readInstalledConfigs(db: Queryable): Promise<Set<string>> {
  const key = db.getExecutor().adapter;
  const cached = installedConfigs.get(key);
  if (cached !== undefined) return cached;
  const read = sql<{ cfgname: string }>`select cfgname from pg_ts_config`
    .execute(db)
    .then((result) => new Set(result.rows.map((row) => row.cfgname)));
  installedConfigs.set(key, read);
  read.catch(() => {
    // Forget the failure unless a later call already replaced it.
    if (installedConfigs.get(key) === read) installedConfigs.delete(key);
  });
  return read;
}

/** The text-search configuration for a document language, if this database has it. */
export async function textSearchConfig(db: Queryable, language: string | null): Promise<string> {
  const wanted = language ? TS_CONFIGS[language.split('-')[0] ?? ''] : undefined;
  if (!wanted) return 'simple';
  return (await readInstalledConfigs(db)).has(wanted) ? wanted : 'simple';
}
