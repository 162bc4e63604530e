// conversations.last_visitor_message_at (migration 0031): filled for the conversations that exist
// at the upgrade, then kept by a trigger on messages whoever writes them. The inbox's unread flag
// and counts read it (admin-inbox.test.ts checks them through the API).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../src/db/database.js';
import { loadMigrations, migrate } from '../src/db/migrate.js';
import { createTestDatabase, TEST_ENGINE } from './support/test-database.js';

const at = (hour: number) => `2026-03-01T${String(hour).padStart(2, '0')}:00:00.000Z`;

describe(`the newest visitor message kept on its conversation (${TEST_ENGINE})`, () => {
  let database: Database;
  const query = async <Row extends Record<string, unknown>>(text: string, values: unknown[] = []) =>
    (await database.pool.query<Row>(text, values)).rows;
  const lastVisitor = async (conversation: string) =>
    (
      await query<{ at: Date | null }>(
        'select last_visitor_message_at as at from conversations where id = $1',
        [conversation],
      )
    )[0]?.at?.toISOString() ?? null;
  let message = 0;
  const say = async (conversation: string, role: string, hour: number) => {
    message += 1;
    const id = `m${message}`;
    await query(
      `insert into messages (id, workspace_id, conversation_id, role, content, created_at)
       values ($1, 'w1', $2, $3, 'Hello', $4)`,
      [id, conversation, role, at(hour)],
    );
    return id;
  };

  before(async () => {
    database = await createTestDatabase({ empty: true });
    const migrations = await loadMigrations();
    const upgrade = migrations.findIndex((m) => m.name === 'last_visitor_message');
    assert.ok(upgrade > 0, 'migration 0031 is there');
    // The database as the release before it left it, with conversations in it.
    await migrate(database.pool, migrations.slice(0, upgrade));
    await query(`insert into workspaces (id, name, slug) values ('w1', 'Acme', 'acme')`);
    await query(`insert into agents (id, workspace_id, name, theme) values ('a1', 'w1', 'Bot', '{}')`);
    for (const id of ['c1', 'c2', 'c3']) {
      await query(`insert into visitors (id, workspace_id, agent_id, anon_id) values ($1, 'w1', 'a1', $1)`, [
        `v-${id}`,
      ]);
      await query(
        `insert into conversations (id, workspace_id, agent_id, visitor_id) values ($1, 'w1', 'a1', $2)`,
        [id, `v-${id}`],
      );
    }
    await say('c1', 'visitor', 9);
    await say('c1', 'visitor', 11);
    await say('c1', 'assistant', 12);
    await say('c2', 'assistant', 10);
    const applied = await migrate(database.pool, migrations);
    assert.deepEqual(applied.applied, [migrations[upgrade]?.version]);
  });
  after(async () => {
    await database.close();
  });

  test('the upgrade fills it from the messages already there: the newest visitor one, or none', async () => {
    assert.equal(await lastVisitor('c1'), at(11));
    assert.equal(await lastVisitor('c2'), null);
    assert.equal(await lastVisitor('c3'), null);
  });

  test('a visitor message moves it forward; an older one or another role does not', async () => {
    const newest = await say('c3', 'visitor', 14);
    assert.equal(await lastVisitor('c3'), at(14));
    await say('c3', 'visitor', 13);
    await say('c3', 'operator', 15);
    await say('c3', 'assistant', 16);
    assert.equal(await lastVisitor('c3'), at(14));
    // Deleting the newest visitor message takes it back to the one before; the last one, to none.
    await query('delete from messages where id = $1', [newest]);
    assert.equal(await lastVisitor('c3'), at(13));
    await query(`delete from messages where conversation_id = 'c3' and role = 'visitor'`);
    assert.equal(await lastVisitor('c3'), null);
  });

  test('a message whose role or time changes, or that moves to another conversation, recomputes both', async () => {
    const id = await say('c2', 'visitor', 18);
    assert.equal(await lastVisitor('c2'), at(18));
    await query('update messages set created_at = $2 where id = $1', [id, at(8)]);
    assert.equal(await lastVisitor('c2'), at(8));
    await query(`update messages set role = 'system' where id = $1`, [id]);
    assert.equal(await lastVisitor('c2'), null);
    await query(`update messages set role = 'visitor' where id = $1`, [id]);
    assert.equal(await lastVisitor('c2'), at(8));
    await query(`update messages set conversation_id = 'c3' where id = $1`, [id]);
    assert.equal(await lastVisitor('c2'), null);
    assert.equal(await lastVisitor('c3'), at(8));
    assert.equal(await lastVisitor('c1'), at(11));
  });
});
