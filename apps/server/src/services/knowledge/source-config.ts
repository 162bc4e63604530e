import {
  DEFAULT_SQL_PORTS,
  type TSourceCreate,
  type TSourceProgress,
  ZSourceProgress,
  ZSourceRunCounts,
} from '@service/contract';
import { sealSqlPassword } from '../../sql-source/sql-password.js';

/** How a source's settings are stored, audited and shown: `sources.config` and `sources.progress`. */

/** The name a source gets when the admin gives none. */
export function defaultName(input: TSourceCreate): string {
  switch (input.type) {
    case 'text':
      return 'Pasted text';
    case 'sql':
      return `${input.engine}://${input.host}/${input.database}`;
    default:
      return input.url;
  }
}

/** What is stored in `sources.config`: the settings, with an SQL password sealed. */
export function storedConfig(
  input: TSourceCreate,
  sourceId: string,
  appKey: Buffer,
): Record<string, unknown> {
  switch (input.type) {
    case 'text':
      return {};
    case 'url':
      return { url: input.url };
    case 'crawl':
      return { url: input.url, max_pages: input.max_pages, max_depth: input.max_depth, ...politeness(input) };
    case 'sitemap':
      return { url: input.url, max_pages: input.max_pages, ...politeness(input) };
    case 'sql': {
      const { type: _type, name: _name, password, ...settings } = input;
      return {
        ...settings,
        port: input.port ?? DEFAULT_SQL_PORTS[input.engine],
        password_sealed: sealSqlPassword(password, appKey, sourceId),
      };
    }
  }
}

/** A crawl's own pacing, only where the admin set it (absent: the service's default for the host). */
function politeness(input: { crawl_delay_ms?: number | undefined; concurrency?: number | undefined }) {
  return {
    ...(input.crawl_delay_ms !== undefined ? { crawl_delay_ms: input.crawl_delay_ms } : {}),
    ...(input.concurrency !== undefined ? { concurrency: input.concurrency } : {}),
  };
}

/** What the audit log records of a new source (never a password). */
export function auditDetails(input: TSourceCreate): Record<string, unknown> {
  switch (input.type) {
    case 'text':
      return {};
    case 'sql':
      return { engine: input.engine, host: input.host, database: input.database, user: input.user };
    default:
      return { url: input.url };
  }
}

/** Settings shown per source type; anything else in `config` (sealed secrets, coupons) stays hidden. */
const PUBLIC_CONFIG_KEYS: Readonly<Record<string, readonly string[]>> = {
  url: ['url'],
  crawl: ['url', 'max_pages', 'max_depth', 'crawl_delay_ms', 'concurrency'],
  sitemap: ['url', 'max_pages', 'crawl_delay_ms', 'concurrency'],
  sql: [
    'engine',
    'host',
    'port',
    'database',
    'user',
    'query',
    'ssl',
    'title_column',
    'id_column',
    'url_column',
  ],
  upload: [
    'file_name',
    'file_type',
    'size_bytes',
    'sha256',
    'pages_read',
    'sheets_read',
    'rows_read',
    'paragraphs_read',
  ],
};

/** The settings a source shows through the API. */
export function publicConfig(type: string, config: Record<string, unknown>): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const key of PUBLIC_CONFIG_KEYS[type] ?? []) {
    if (config[key] !== undefined) shown[key] = config[key];
  }
  return shown;
}

/**
 * The stored `progress.last_run`, if it has the documented shape (a run recorded before `found`
 * and `failed` were counted shows them as null).
 */
export function lastRun(progress: Record<string, unknown>): TSourceProgress['last_run'] {
  const stored = progress.last_run;
  const filled =
    typeof stored === 'object' && stored !== null ? { found: null, failed: null, ...stored } : null;
  const parsed = ZSourceProgress.shape.last_run.safeParse(filled);
  return parsed.success ? parsed.data : null;
}

/** The running fetch's live counts (`progress.run`), shown only while the source is `fetching`. */
export function runCounts(status: string, progress: Record<string, unknown>): TSourceProgress['run'] {
  if (status !== 'fetching') return null;
  const parsed = ZSourceRunCounts.safeParse(progress.run ?? null);
  return parsed.success ? parsed.data : null;
}
