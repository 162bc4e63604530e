/**
 * The service as `npm start` runs it, for the quality bench: `startService` over a fresh
 * DATA_DIR (embedded store) or a fresh database on a PostgreSQL server (created for the run,
 * dropped after), SAFE_URL_ALLOW letting the crawl reach the
 * loopback corpus site, a bootstrapped tenant, and the admin API over HTTP. Then one agent with
 * a sitemap source of the corpus, watched until its pages are fetched, indexed and embedded.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { systemClock } from '../../../apps/server/src/clock.js';
import { ensureAppKey } from '../../../apps/server/src/config/app-key.js';
import { type Config, loadConfig } from '../../../apps/server/src/config/config.js';
import { type EmbeddingProvider, embeddingProviderFor } from '../../../apps/server/src/embeddings/index.js';
import { createLogger } from '../../../apps/server/src/logger.js';
import { type RunningService, startService } from '../../../apps/server/src/service.js';
import { bootstrap } from '../../../apps/server/src/services/accounts/bootstrap.js';
import { hasKey } from './http.js';

/** An admin API call: JSON in, the envelope's `data` out; a non-2xx answer throws. */
export type Api = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** The running service, its tenant and how to reach it. */
export type QualityService = {
  service: RunningService;
  config: Config;
  baseUrl: string;
  workspaceId: string;
  api: Api;
  embeddings: EmbeddingProvider | null;
  /** What a later run needs to reuse this store (`--reuse-dir`); saved by `saveState`. */
  state: StoreState;
  stop(): Promise<void>;
};

/** A kept store's key, tenant and (once indexed) agent and indexing outcome. */
export type StoreState = {
  appKey: string;
  workspaceId: string;
  adminToken: string;
  agentId?: string;
  /** The corpus site's address at indexing time: the root the hits' URLs are relative to. */
  corpusBaseUrl?: string;
  outcome?: IndexOutcome;
};

const STATE_FILE = 'bench-quality.json';

/** Writes the state of a kept store into its DATA_DIR, for `--reuse-dir`. */
export async function saveState(dataDir: string, state: StoreState): Promise<void> {
  await writeFile(join(dataDir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
}

async function readState(dataDir: string): Promise<StoreState> {
  const raw: unknown = JSON.parse(await readFile(join(dataDir, STATE_FILE), 'utf8'));
  if (!hasKey(raw, 'appKey') || !hasKey(raw, 'workspaceId') || !hasKey(raw, 'adminToken'))
    throw new Error(`${dataDir}/${STATE_FILE} is not a kept quality-bench store`);
  return raw as StoreState;
}

/** A fresh database on the server at `adminUrl`: its URL, and how to drop it. */
async function createDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `svc_bench_quality_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Pool({ connectionString: adminUrl, max: 1 });
  await admin.query(`create database "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
    },
  };
}

/**
 * Starts the service; `databaseUrl` null means the embedded store in a fresh temp DATA_DIR,
 * otherwise a fresh database on that PostgreSQL server. `keepDir`: the embedded store in
 * that directory (created), not removed at the end; `reuseDir`: the store a `keepDir` run
 * left, started again (migrations run, nothing is bootstrapped or indexed again).
 */
export async function startQualityService(options: {
  corpusPort: number;
  databaseUrl: string | null;
  crawlDelayMs: number;
  keepDir?: string | null;
  reuseDir?: string | null;
  /** EMBEDDINGS_PROVIDER of the service (default: the service's own, `none`). */
  embeddingsProvider?: string;
}): Promise<QualityService> {
  const kept = options.reuseDir ?? options.keepDir ?? null;
  if (kept && options.databaseUrl) throw new Error('--keep-dir and --reuse-dir take the embedded store only');
  if (options.keepDir) await mkdir(options.keepDir, { recursive: true });
  const dataDir = kept ?? (await mkdtemp(join(tmpdir(), 'svc-bench-quality-')));
  const reused = options.reuseDir ? await readState(options.reuseDir) : null;
  const appKey = reused?.appKey ?? `base64:${randomBytes(32).toString('base64')}`;
  const database = options.databaseUrl ? await createDatabase(options.databaseUrl) : null;
  const config = await ensureAppKey(
    loadConfig({
      DATA_DIR: dataDir,
      ...(database ? { DATABASE_URL: database.url } : {}),
      PORT: '0',
      HOST: '127.0.0.1',
      APP_KEY: appKey,
      BCRYPT_COST: '4',
      LOG_LEVEL: 'silent',
      SAFE_URL_ALLOW: `127.0.0.1:${options.corpusPort}`,
      CRAWL_DELAY_MS: String(options.crawlDelayMs),
      ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
      ADMIN_EXPENSIVE_RATE_LIMIT_PER_MINUTE: '100000',
      ...(options.embeddingsProvider ? { EMBEDDINGS_PROVIDER: options.embeddingsProvider } : {}),
    }),
    () => {},
  );
  const service = await startService(config, createLogger('silent')).catch(async (error: unknown) => {
    await database?.drop();
    throw error;
  });
  const stop = async () => {
    await service.stop();
    await database?.drop();
    if (!kept) await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const tenant = reused ?? (await bootstrapTenant(service));
    const baseUrl = service.url ?? '';
    return {
      service,
      config,
      baseUrl,
      workspaceId: tenant.workspaceId,
      api: apiFor(baseUrl, tenant.adminToken),
      // The provider the service built for itself: the same settings, the same vectors.
      embeddings: embeddingProviderFor(config, service.database.features),
      state: { ...tenant, appKey },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function bootstrapTenant(
  service: RunningService,
): Promise<{ workspaceId: string; adminToken: string }> {
  const tenant = await bootstrap({
    db: service.database.db,
    clock: systemClock,
    input: {
      email: `quality-${randomBytes(4).toString('hex')}@example.com`,
      password: 'correct horse battery',
      workspace: 'Quality bench',
    },
    bcryptCost: 4,
  });
  return { workspaceId: tenant.workspace.id, adminToken: tenant.admin_token };
}

function apiFor(baseUrl: string, token: string): Api {
  return async (method, path, body) => {
    const response = await fetch(`${baseUrl}/api/v1/admin${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json: unknown = await response.json();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return hasKey(json, 'data') ? json.data : json;
  };
}

/** The id of an API answer. */
export function idOf(value: unknown): string {
  if (!hasKey(value, 'id') || typeof value.id !== 'string')
    throw new Error(`no id in ${JSON.stringify(value)}`);
  return value.id;
}

/** How the indexing went: documents, chunks, and the seconds until fetched+indexed and until embedded. */
export type IndexOutcome = {
  status: string;
  error: string | null;
  documents: number;
  chunks: number;
  indexedSeconds: number;
  embeddedSeconds: number;
};

type Counts = {
  status: string;
  error: string | null;
  documents: number;
  pending: number;
  chunks: number;
  missing: number;
};

/**
 * The source's counts; chunks without a vector only when `withMissing` (that count scans every
 * chunk, and polled each second it would take the embedded store's one backend from the jobs).
 */
async function counts(
  qs: QualityService,
  agentId: string,
  sourceId: string,
  withMissing: boolean,
): Promise<Counts> {
  const vector = qs.service.database.features.vector && withMissing;
  const missing = vector
    ? sql`(select count(*) from chunks c where c.agent_id = ${agentId} and not exists (
        select 1 from embeddings e where e.agent_id = c.agent_id and e.content_hash = c.content_hash))`
    : sql`0`;
  const result = await sql<{
    status: string;
    error: string | null;
    documents: string;
    pending: string;
    chunks: string;
    missing: string;
  }>`
    select s.status, s.error,
      (select count(*) from documents d where d.source_id = s.id) as documents,
      (select count(*) from documents d where d.source_id = s.id and d.index_status = 'pending') as pending,
      (select count(*) from chunks c where c.agent_id = ${agentId}) as chunks,
      ${missing} as missing
    from sources s where s.id = ${sourceId}`.execute(qs.service.database.db);
  const row = result.rows[0];
  if (!row) throw new Error(`source ${sourceId} is gone`);
  return {
    status: row.status,
    error: row.error,
    documents: Number(row.documents),
    pending: Number(row.pending),
    chunks: Number(row.chunks),
    missing: Number(row.missing),
  };
}

/**
 * Adds the sitemap source through the admin API and waits until the fetch is over (`indexed`
 * or `failed`), no document is pending and every chunk has its vector; reports progress on
 * stderr. Throws after `timeoutMs`.
 */
export async function indexSitemap(
  qs: QualityService,
  agentId: string,
  sitemapUrl: string,
  timeoutMs: number,
): Promise<IndexOutcome> {
  const started = performance.now();
  const sourceId = idOf(
    await qs.api('POST', `/agents/${agentId}/sources`, { type: 'sitemap', url: sitemapUrl, max_pages: 2000 }),
  );
  let indexedAt: number | null = null;
  let lastReport = 0;
  for (;;) {
    const now = performance.now();
    const c = await counts(qs, agentId, sourceId, indexedAt !== null);
    const fetched = c.status !== 'queued' && c.status !== 'fetching';
    if (fetched && c.pending === 0 && indexedAt === null) indexedAt = now;
    if (indexedAt !== null && c.missing === 0 && c.status !== 'indexing') {
      return {
        status: c.status,
        error: c.error,
        documents: c.documents,
        chunks: c.chunks,
        indexedSeconds: (indexedAt - started) / 1000,
        embeddedSeconds: (now - started) / 1000,
      };
    }
    if (now - lastReport >= 10_000) {
      lastReport = now;
      process.stderr.write(
        `  ${Math.round((now - started) / 1000)} s: source ${c.status}, ${c.documents} documents ` +
          `(${c.pending} pending), ${c.chunks} chunks${indexedAt === null ? '' : `, ${c.missing} without a vector`}\n`,
      );
    }
    if (now - started > timeoutMs) throw new Error(`indexing did not finish in ${timeoutMs / 60_000} min`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
