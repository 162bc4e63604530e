import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock } from '../src/clock.js';
import { ensureAppKey } from '../src/config/app-key.js';
import { loadConfig } from '../src/config/config.js';
import { embeddingProviderFor } from '../src/embeddings/index.js';
import { createLogger } from '../src/logger.js';
import { type RunningService, startService } from '../src/service.js';
import { bootstrap } from '../src/services/accounts/bootstrap.js';

// The service's default computes no vectors (EMBEDDINGS_PROVIDER=none): search leaves the
// offline hashed vectors out (bench/README.md, "Ranking, fourth step"), so computing them only
// cost indexing time. Started as `npm start` does, a text source goes to `indexed` with nothing
// embedded, its progress says vectors are off, and search finds it by its words.

const FEATURES_WITH_VECTORS = { vector: true, trigram: true };

test('EMBEDDINGS_PROVIDER: none by default, and none gives no provider even where vectors could be stored', () => {
  assert.equal(loadConfig({}).embeddings.provider, 'none');
  assert.equal(embeddingProviderFor(loadConfig({}), FEATURES_WITH_VECTORS), null);
  assert.equal(
    embeddingProviderFor(loadConfig({ EMBEDDINGS_PROVIDER: 'none' }), FEATURES_WITH_VECTORS),
    null,
  );
  assert.equal(
    embeddingProviderFor(loadConfig({ EMBEDDINGS_PROVIDER: 'offline' }), FEATURES_WITH_VECTORS)?.semantic,
    false,
  );
});

describe('the default service: a source indexes without vectors and is found by its words', () => {
  let dataDir: string;
  let running: RunningService;
  let base: string;
  let auth: Record<string, string>;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-embeddings-default-'));
    const config = await ensureAppKey(
      loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BCRYPT_COST: '4', LOG_LEVEL: 'silent' }),
      () => {},
    );
    running = await startService(config, createLogger('silent'));
    assert.ok(running.url);
    base = running.url;
    const owner = await bootstrap({
      db: running.database.db,
      clock: systemClock,
      input: { email: 'owner@example.com', password: 'correct horse battery', workspace: 'Default vectors' },
      bcryptCost: 4,
    });
    auth = { authorization: `Bearer ${owner.admin_token}`, 'content-type': 'application/json' };
  });
  after(async () => {
    await running?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/api/v1/admin${path}`, {
      method,
      headers: auth,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as { data: Record<string, unknown> };
    assert.ok(res.ok, JSON.stringify(json));
    return json.data;
  };

  test('indexed with chunks_embedded null, no vector stored, and search finds the text', async () => {
    const agent = await api('POST', '/agents', { name: 'Default bot' });
    const source = await api('POST', `/agents/${agent.id}/sources`, {
      type: 'text',
      name: 'Opening hours',
      text: 'Our roastery in Lyon opens at nine and closes at five, Monday to Saturday.',
    });
    let current = source;
    for (let i = 0; i < 300 && current.status !== 'indexed'; i += 1) {
      await sleep(100);
      current = await api('GET', `/sources/${source.id}`);
    }
    assert.equal(current.status, 'indexed', JSON.stringify(current));
    const progress = current.progress as { chunks_embedded: number | null; chunks_total: number };
    assert.equal(progress.chunks_embedded, null, 'vectors are off: nothing to count');
    assert.ok(progress.chunks_total > 0);
    const stored = await running.database.db
      .selectFrom('embeddings')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(stored.n), 0);
    const found = await api('POST', `/agents/${agent.id}/search`, { query: 'when does the roastery open' });
    const hits = found.hits as { content: string }[];
    assert.match(hits[0]?.content ?? '', /roastery in Lyon/);
  });
});
