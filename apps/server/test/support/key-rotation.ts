import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ZSource } from '@service/contract';
import { type Kysely, sql } from 'kysely';
import { decodeAppKey } from '../../src/config/config.js';
import type { DB } from '../../src/db/schema.js';
import { expectData } from './http.js';
import { createAgent } from './site-sync.js';
import { injectJson, seedTenant, type TestApp } from './test-app.js';

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
