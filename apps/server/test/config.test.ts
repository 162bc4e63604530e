import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { APP_KEY_FILE, ensureAppKey, formatAppKey, generateAppKey } from '../src/config/app-key.js';
import { ConfigError, decodeAppKey, loadConfig } from '../src/config/config.js';
import { runMain } from './support/processes.js';

const KEY = `base64:${Buffer.alloc(32, 7).toString('base64')}`;

/** Asserts loadConfig(env) throws a ConfigError whose message names every one of `names`. */
function rejects(env: Record<string, string>, ...names: string[]): void {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, String(error));
      assert.match(error.message, /^Invalid configuration:/);
      for (const name of names) assert.match(error.message, new RegExp(`\\b${name}\\b`));
      return true;
    },
  );
}

describe('loadConfig', () => {
  test('HANDOFF_MAIL_AFTER_SECONDS: 120 by default, 0 turns the mail off, bad values refused', () => {
    assert.equal(loadConfig({}).handoffMailAfterSeconds, 120);
    assert.equal(loadConfig({ HANDOFF_MAIL_AFTER_SECONDS: '' }).handoffMailAfterSeconds, 120);
    assert.equal(loadConfig({ HANDOFF_MAIL_AFTER_SECONDS: '0' }).handoffMailAfterSeconds, 0);
    assert.equal(loadConfig({ HANDOFF_MAIL_AFTER_SECONDS: '600' }).handoffMailAfterSeconds, 600);
    for (const bad of ['-1', '1.5', 'soon', '86401'])
      rejects({ HANDOFF_MAIL_AFTER_SECONDS: bad }, 'HANDOFF_MAIL_AFTER_SECONDS');
  });

  test('defaults: port 8080, ./data, embedded store, no key', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.dataDir, './data');
    assert.deepEqual(config.database, { mode: 'embedded', scheduling: 'interactive-first' });
    assert.equal(config.appKey, undefined);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.bcryptCost, 12);
    assert.equal(config.llm.provider, 'offline');
    assert.deepEqual(config.safeUrlAllow, []);
  });

  test('empty strings count as unset', () => {
    const config = loadConfig({ PORT: '', DATA_DIR: ' ', APP_KEY: '', LOG_LEVEL: '' });
    assert.equal(config.port, 8080);
    assert.equal(config.dataDir, './data');
    assert.equal(config.appKey, undefined);
    assert.equal(config.logLevel, 'info');
  });

  test('parses values: port, key, PostgreSQL, allow-list, trailing slash of the public URL', () => {
    const config = loadConfig({
      PORT: '0',
      APP_KEY: KEY,
      DATABASE_URL: 'postgresql://user@127.0.0.1:5432/app',
      DATABASE_POOL_SIZE: '3',
      SAFE_URL_ALLOW: ' 127.0.0.1:4010 , Example.COM ,',
      PUBLIC_BASE_URL: 'https://chat.example.com/',
    });
    assert.equal(config.port, 0);
    assert.deepEqual(config.appKey, Buffer.alloc(32, 7));
    assert.deepEqual(config.database, {
      mode: 'postgres',
      url: 'postgresql://user@127.0.0.1:5432/app',
      poolSize: 3,
    });
    assert.deepEqual(config.safeUrlAllow, ['127.0.0.1:4010', 'example.com']);
    assert.equal(config.publicBaseUrl, 'https://chat.example.com');
  });

  test('the config and its parts are frozen', () => {
    const config = loadConfig({});
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.database));
    assert.ok(Object.isFrozen(config.llm));
    assert.ok(Object.isFrozen(config.embeddings));
    assert.ok(Object.isFrozen(config.safeUrlAllow));
    assert.throws(() => Object.assign(config, { port: 1 }), TypeError);
    assert.throws(() => Object.assign(config.database, { mode: 'postgres' }), TypeError);
    assert.equal(config.port, 8080);
  });

  test('EMBEDDED_CACHE_MB sets the embedded buffer cache (16–1024 MB); unset, it is sized at start', () => {
    assert.deepEqual(loadConfig({ EMBEDDED_CACHE_MB: '256' }).database, {
      mode: 'embedded',
      scheduling: 'interactive-first',
      cacheMb: 256,
    });
    assert.deepEqual(loadConfig({ EMBEDDED_CACHE_MB: '' }).database, {
      mode: 'embedded',
      scheduling: 'interactive-first',
    });
    for (const bad of ['15', '1025', '64.5', 'lots', '-1'])
      rejects({ EMBEDDED_CACHE_MB: bad }, 'EMBEDDED_CACHE_MB');
  });

  test('EMBEDDED_STORE_SCHEDULING is interactive-first (default) or fifo', () => {
    assert.deepEqual(loadConfig({ EMBEDDED_STORE_SCHEDULING: 'fifo' }).database, {
      mode: 'embedded',
      scheduling: 'fifo',
    });
    assert.deepEqual(loadConfig({ EMBEDDED_STORE_SCHEDULING: '' }).database, {
      mode: 'embedded',
      scheduling: 'interactive-first',
    });
    for (const bad of ['FIFO', 'background-first', 'lifo'])
      rejects({ EMBEDDED_STORE_SCHEDULING: bad }, 'EMBEDDED_STORE_SCHEDULING');
  });

  test('EXTRACT_*: threads, heap and time of the extraction pool, bounded at their edges', () => {
    assert.deepEqual(loadConfig({}).extraction, { workers: 2, heapMb: 512, timeoutMs: 60_000 });
    const edges = { EXTRACT_WORKERS: '16', EXTRACT_HEAP_MB: '64', EXTRACT_TIMEOUT_MS: '1000' };
    assert.deepEqual(loadConfig(edges).extraction, { workers: 16, heapMb: 64, timeoutMs: 1000 });
    const top = { EXTRACT_WORKERS: '1', EXTRACT_HEAP_MB: '8192', EXTRACT_TIMEOUT_MS: '600000' };
    assert.deepEqual(loadConfig(top).extraction, { workers: 1, heapMb: 8192, timeoutMs: 600_000 });
    for (const bad of ['0', '17', '1.5']) rejects({ EXTRACT_WORKERS: bad }, 'EXTRACT_WORKERS');
    for (const bad of ['63', '8193', 'lots']) rejects({ EXTRACT_HEAP_MB: bad }, 'EXTRACT_HEAP_MB');
    for (const bad of ['999', '600001']) rejects({ EXTRACT_TIMEOUT_MS: bad }, 'EXTRACT_TIMEOUT_MS');
  });

  test('a bad PORT is named', () => {
    rejects({ PORT: 'abc' }, 'PORT');
    rejects({ PORT: '70000' }, 'PORT');
    rejects({ PORT: '-1' }, 'PORT');
    rejects({ PORT: '80.5' }, 'PORT');
  });

  test('a bad APP_KEY is named', () => {
    rejects({ APP_KEY: 'secret' }, 'APP_KEY');
    rejects({ APP_KEY: 'base64:c2hvcnQ=' }, 'APP_KEY');
    rejects({ APP_KEY: Buffer.alloc(32, 7).toString('base64') }, 'APP_KEY');
  });

  test('DATABASE_URL must be postgres:// and needs APP_KEY', () => {
    rejects({ DATABASE_URL: 'mysql://127.0.0.1/app', APP_KEY: KEY }, 'DATABASE_URL');
    rejects({ DATABASE_URL: 'postgres://127.0.0.1/app' }, 'APP_KEY', 'DATABASE_URL');
  });

  test('a bad LOG_LEVEL is named', () => {
    rejects({ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL');
  });

  test('an LLM provider without its credentials is named', () => {
    rejects({ LLM_PROVIDER: 'openai' }, 'LLM_PROVIDER');
    rejects({ LLM_PROVIDER: 'anthropic' }, 'LLM_PROVIDER');
    rejects({ LLM_PROVIDER: 'watson' }, 'LLM_PROVIDER');
    assert.equal(loadConfig({ LLM_PROVIDER: 'openai', LLM_API_KEY: 'k' }).llm.provider, 'openai');
    const local = loadConfig({ LLM_PROVIDER: 'openai', LLM_BASE_URL: 'http://127.0.0.1:11434/v1' });
    assert.equal(local.llm.baseUrl, 'http://127.0.0.1:11434/v1');
  });

  test('an embeddings provider without its endpoint or key is named; a dimension is bounded', () => {
    rejects({ EMBEDDINGS_PROVIDER: 'openai' }, 'EMBEDDINGS_PROVIDER');
    rejects({ EMBEDDINGS_PROVIDER: 'sentencepiece' }, 'EMBEDDINGS_PROVIDER');
    rejects({ EMBEDDINGS_DIMENSIONS: '7' }, 'EMBEDDINGS_DIMENSIONS');
    rejects({ EMBEDDINGS_DIMENSIONS: '4097' }, 'EMBEDDINGS_DIMENSIONS');
    const local = loadConfig({
      EMBEDDINGS_PROVIDER: 'openai',
      EMBEDDINGS_BASE_URL: 'http://127.0.0.1:11434/v1',
      EMBEDDINGS_MODEL: 'nomic-embed-text',
      EMBEDDINGS_DIMENSIONS: '768',
    });
    assert.deepEqual(
      { ...local.embeddings },
      {
        provider: 'openai',
        baseUrl: 'http://127.0.0.1:11434/v1',
        apiKey: undefined,
        model: 'nomic-embed-text',
        dimensions: 768,
      },
    );
    assert.equal(loadConfig({}).embeddings.provider, 'none');
    assert.equal(loadConfig({ EMBEDDINGS_PROVIDER: 'offline' }).embeddings.provider, 'offline');
  });

  test('every bad variable is listed at once', () => {
    rejects({ PORT: 'abc', LOG_LEVEL: 'loud', BCRYPT_COST: '2' }, 'PORT', 'LOG_LEVEL', 'BCRYPT_COST');
  });
});

describe('ensureAppKey', () => {
  let root: string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-key-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  test('generates DATA_DIR/app.key (0600) with a warning, then reuses the same bytes', async () => {
    const dataDir = join(root, 'fresh', 'data');
    const config = loadConfig({ DATA_DIR: dataDir });
    const warnings: string[] = [];
    const first = await ensureAppKey(config, (message) => warnings.push(message));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /APP_KEY/);
    assert.ok(warnings[0]?.includes(join(dataDir, APP_KEY_FILE)));
    assert.equal((await stat(join(dataDir, APP_KEY_FILE))).mode & 0o777, 0o600);
    assert.equal(first.appKey?.length, 32);
    assert.ok(Object.isFrozen(first));
    const stored = decodeAppKey(await readFile(join(dataDir, APP_KEY_FILE), 'utf8'));
    assert.deepEqual(first.appKey, stored);

    const second = await ensureAppKey(config, (message) => warnings.push(message));
    assert.equal(warnings.length, 1, 'no second warning');
    assert.deepEqual(second.appKey, first.appKey);
  });

  test('concurrent first starts agree on one key and leave no temp files', async () => {
    const dataDir = join(root, 'race');
    const config = loadConfig({ DATA_DIR: dataDir });
    const warnings: string[] = [];
    const results = await Promise.all(
      Array.from({ length: 4 }, () => ensureAppKey(config, (message) => warnings.push(message))),
    );
    const stored = decodeAppKey(await readFile(join(dataDir, APP_KEY_FILE), 'utf8'));
    assert.ok(stored);
    for (const result of results) assert.deepEqual(result.appKey, stored);
    assert.equal(warnings.length, 1);
    assert.deepEqual(await readdir(dataDir), [APP_KEY_FILE]);
    assert.equal((await stat(join(dataDir, APP_KEY_FILE))).mode & 0o777, 0o600);
  });

  test('uses the given random source', async () => {
    const config = loadConfig({ DATA_DIR: join(root, 'seeded') });
    const withKey = await ensureAppKey(
      config,
      () => {},
      (size) => Buffer.alloc(size, 7),
    );
    assert.deepEqual(withKey.appKey, Buffer.alloc(32, 7));
    assert.equal(await readFile(join(root, 'seeded', APP_KEY_FILE), 'utf8'), `${KEY}\n`);
  });

  test('keeps a configured APP_KEY and writes nothing', async () => {
    const dataDir = join(root, 'configured');
    const config = loadConfig({ DATA_DIR: dataDir, APP_KEY: KEY });
    const withKey = await ensureAppKey(config, () => assert.fail('no warning expected'));
    assert.equal(withKey, config);
    await assert.rejects(stat(dataDir), { code: 'ENOENT' });
  });

  test('rejects a corrupt key file, naming APP_KEY', async () => {
    const dataDir = join(root, 'corrupt');
    await ensureAppKey(loadConfig({ DATA_DIR: dataDir }), () => {});
    await writeFile(join(dataDir, APP_KEY_FILE), 'base64:not-a-key\n');
    await assert.rejects(
      ensureAppKey(loadConfig({ DATA_DIR: dataDir }), () => {}),
      (error: unknown) => error instanceof ConfigError && /APP_KEY/.test(error.message),
    );
  });

  test('generateAppKey output is accepted by loadConfig', () => {
    const key = generateAppKey();
    assert.notEqual(key, generateAppKey());
    assert.equal(loadConfig({ APP_KEY: key }).appKey?.length, 32);
  });
});

describe('main.ts with a bad configuration', () => {
  test('exits 1 at once with a readable message naming PORT and no stack trace', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-badcfg-'));
    try {
      const result = await runMain({ DATA_DIR: dataDir, PORT: 'abc', HOST: '127.0.0.1' });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /Invalid configuration/);
      assert.match(result.stderr, /PORT/);
      assert.doesNotMatch(result.stderr, /\n\s+at /);
      assert.equal(result.stdout, '');
      await assert.rejects(stat(join(dataDir, APP_KEY_FILE)), { code: 'ENOENT' });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('APP_KEY_PREVIOUS', () => {
  const previous = Buffer.alloc(32, 0x11);
  test('a valid key is parsed; unset or empty is undefined', () => {
    assert.deepEqual(loadConfig({ APP_KEY_PREVIOUS: formatAppKey(previous) }).appKeyPrevious, previous);
    assert.equal(loadConfig({}).appKeyPrevious, undefined);
    assert.equal(loadConfig({ APP_KEY_PREVIOUS: ' ' }).appKeyPrevious, undefined);
  });

  test('a bad one is named', () => {
    assert.throws(
      () => loadConfig({ APP_KEY: formatAppKey(Buffer.alloc(32, 0x22)), APP_KEY_PREVIOUS: 'base64:nope' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /APP_KEY_PREVIOUS: must be base64:/);
        assert.doesNotMatch(error.message, /^\s+- APP_KEY:/m);
        return true;
      },
    );
  });
});
