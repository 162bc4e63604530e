import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { ZSource } from '@service/contract';
import { type Kysely, sql } from 'kysely';
import { rotateAppKey } from '../../src/cli/key-rotation.js';
import { type Config, decodeAppKey } from '../../src/config/config.js';
import type { Database } from '../../src/db/database.js';
import type { DB } from '../../src/db/schema.js';
import { createSecretKeyring } from '../../src/security/secret-keyring.js';
import { openSqlPassword, sealSqlPassword } from '../../src/sql-source/sql-password.js';
import { expectData } from './http.js';
import { createAgent } from './site-sync.js';
import { createTestApp, injectJson, seedTenant, type TestApp } from './test-app.js';

/** Helpers of the APP_KEY rotation tests. */

/** The key a DATA_DIR key file holds (null when it is not one). */
export async function keyFile(dir: string, name: string): Promise<Buffer | null> {
  return decodeAppKey(await readFile(join(dir, name), 'utf8'));
}

/** A file's permission bits. */
export async function fileMode(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

/** Breaks the tag of a sealed value (it still names its key). */
export function tamperSealed(sealed: string): string {
  const parts = sealed.split('.');
  const tag = parts[4] ?? '';
  parts[4] = `${tag[0] === 'A' ? 'B' : 'A'}${tag.slice(1)}`;
  return parts.join('.');
}

/** Stores a sealed password into an SQL source's config. */
export async function setSealedPassword(db: Kysely<DB>, sourceId: string, sealed: string): Promise<void> {
  await db
    .updateTable('sources')
    .set({ config: sql`jsonb_set(config, '{password_sealed}', to_jsonb(${sealed}::text))` })
    .where('id', '=', sourceId)
    .execute();
}

/** Every SQL source's sealed password, by source id. */
export async function sealedPasswords(db: Kysely<DB>): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('sources')
    .select(['id', sql<string>`config->>'password_sealed'`.as('sealed')])
    .where('type', '=', 'sql')
    .orderBy('id')
    .execute();
  return new Map(rows.map((row) => [row.id, row.sealed]));
}

/**
 * SQL sources created through the admin API, one per password, each in its own agent: the first
 * two in one workspace, the rest in a second. Returns source id → password and the workspaces.
 */
export async function seedSqlSources(
  t: TestApp,
  passwords: readonly string[],
): Promise<{ sources: Map<string, string>; workspaces: string[] }> {
  const tenants = [await seedTenant(t), await seedTenant(t)];
  const sources = new Map<string, string>();
  for (const [index, password] of passwords.entries()) {
    const tenant = index < 2 ? tenants[0] : tenants[1];
    assert.ok(tenant);
    const agentId = await createAgent(t, tenant);
    const body = {
      type: 'sql',
      engine: 'postgres',
      host: 'db.example.com',
      database: 'd',
      user: 'u',
      password,
      query: 'SELECT 1 AS x',
    };
    const res = await injectJson(t.app, 'POST', `/api/v1/admin/agents/${agentId}/sources`, body, tenant.auth);
    sources.set(expectData(res, 201, ZSource).id, password);
  }
  return { sources, workspaces: tenants.map((tenant) => tenant.workspace.id) };
}

export const OLD = Buffer.alloc(32, 0x11);
export const NEW = Buffer.alloc(32, 0x22);
export const OTHER = Buffer.alloc(32, 0x33);
/** A key no rotation here knows. */
export const STRANGER = Buffer.alloc(32, 0x44);
export const PASSWORDS = ['pw-1-Alpha', 'pw-2-Bravo', 'pw-3-Charlie'];

/**
 * What the key:rotate tests share: an app with three SQL sources (the first two in one
 * workspace, the third in another), temp folders removed afterwards, and how to seal, look at and
 * rotate their passwords. Registers the `before`/`after` hooks; its functions are safe to destructure.
 */
export function keyRotationApp() {
  let app: TestApp | undefined;
  let shared: Database | undefined;
  /** Source id → its plaintext password. */
  const sources = new Map<string, string>();
  const workspaces: string[] = [];
  const temps: string[] = [];
  const started = () => {
    if (!app || !shared) throw new Error('the key:rotate test app is not started yet (use it inside tests)');
    return { t: app, shared };
  };
  const db = () => started().t.database.db;

  const fixture = {
    get t(): TestApp {
      return started().t;
    },
    /** The two workspaces, in seeding order. */
    workspaces,
    sourceIds: () => [...sources.keys()],
    /** A temp folder, removed after the file. */
    tempDir: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'svc-rotate-'));
      temps.push(dir);
      return dir;
    },
    /** Stores every password sealed with `key` (or per source, `keyOf`). */
    sealAll: async (keyOf: Buffer | ((id: string) => Buffer)) => {
      for (const [id, password] of sources) {
        const key = typeof keyOf === 'function' ? keyOf(id) : keyOf;
        await setSealedPassword(db(), id, sealSqlPassword(password, key, id));
      }
    },
    /** Every source and audit row, to show a failed rotation changed nothing. */
    snapshot: async () => ({
      sources: await db().selectFrom('sources').selectAll().orderBy('id').execute(),
      audit: await db().selectFrom('audit_logs').selectAll().orderBy('id').execute(),
    }),
    rotationAudits: () =>
      db()
        .selectFrom('audit_logs')
        .selectAll()
        .where('action', '=', 'app_key.rotated')
        .orderBy('id')
        .execute(),
    assertAllOpenWith: async (key: Buffer) => {
      const sealed = await sealedPasswords(db());
      for (const [id, password] of sources) {
        assert.equal(openSqlPassword(sealed.get(id) ?? '', createSecretKeyring(key), id), password, id);
      }
    },
    /** The CLI's rotation on the test's store (`opened` is called when it opens the store). */
    rotate: (config: Config, extra: { newKey?: string; opened?: () => void } = {}) =>
      rotateAppKey({
        config,
        newKey: extra.newKey,
        openDatabase: async () => {
          extra.opened?.();
          return started().shared;
        },
        warn: () => {},
      }),
  };

  before(async () => {
    const t = await createTestApp();
    app = t;
    // The rotation closes the store it opened; here it gets the test's store, which stays open.
    shared = { ...t.database, close: async () => {} };
    const seeded = await seedSqlSources(t, PASSWORDS);
    for (const [id, password] of seeded.sources) sources.set(id, password);
    workspaces.push(...seeded.workspaces);
    // The API sealed them with the app's key.
    assert.ok(t.config.appKey);
    await fixture.assertAllOpenWith(t.config.appKey);
  });
  after(async () => {
    await app?.close();
    for (const dir of temps) await rm(dir, { recursive: true, force: true });
  });
  return fixture;
}
