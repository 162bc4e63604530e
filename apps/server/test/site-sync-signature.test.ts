import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { computeSignature, signRequest, ZSyncResult } from '@service/contract';
import { expectData, expectError } from './support/http.js';
import {
  documentsOf,
  queuedJobs,
  SIGNED_ROUTES,
  type SignOptions,
  samplePost,
  siteSyncApp,
  snapshot,
  target,
} from './support/site-sync.js';
import { issueToken } from './support/test-app.js';

/** The pinned service clock: 2026-11-01T12:00:00Z. */
const FIXED_MS = Date.UTC(2026, 10, 1, 12, 0, 0);
const NOW = FIXED_MS / 1000;

describe('site integration: request signatures (pinned clock)', () => {
  const s = siteSyncApp({ now: () => new Date(FIXED_MS) });
  let otherToken: string;

  before(async () => {
    // A second valid integration token of the same workspace.
    otherToken = (await issueToken(s.t, s.site.tenant, ['wp:integration'])).token;
  });

  const sync = (wpId: number) => ({ ...target(s.site.agentId), posts: [samplePost(wpId)] });

  /** Sends a request that must be refused with `code` and change nothing. */
  async function expectRefused(
    path: string,
    options: SignOptions,
    code: string,
    status = 401,
    body: unknown = sync(900),
  ) {
    const before = await snapshot(s.t);
    const res = await s.post(path, body, options);
    const envelope = expectError(res, status, code);
    assert.deepEqual(envelope.errors, {});
    assert.deepEqual(await snapshot(s.t), before, `${code}: nothing stored or queued`);
  }

  test('timestamps 300 s behind and ahead are accepted', async () => {
    for (const [wpId, timestamp] of [
      [1, NOW - 300],
      [2, NOW + 300],
      [3, NOW],
    ] as const) {
      const res = await s.post('posts/sync', sync(wpId), { timestamp });
      assert.deepEqual(expectData(res, 200, ZSyncResult), {
        queued: 1,
        skipped_unchanged: 0,
        deleted: 0,
        failed: 0,
        failures: [],
      });
    }
    const stored = await documentsOf(s.t, s.site.agentId);
    assert.deepEqual(
      stored.map((doc) => [doc.external_id, doc.index_status]),
      [
        ['1', 'pending'],
        ['2', 'pending'],
        ['3', 'pending'],
      ],
    );
    assert.equal(await queuedJobs(s.t), 3);
  });

  test('timestamps 301 s behind or ahead → 401 signature_mismatch on every signed route', async () => {
    for (const route of SIGNED_ROUTES) {
      for (const timestamp of [NOW - 301, NOW + 301, NOW - 86_400, 0]) {
        await expectRefused(route, { timestamp }, 'signature_mismatch');
      }
    }
  });

  test('a signature over a different body → signature_mismatch', async () => {
    const other = JSON.stringify(sync(901));
    await expectRefused('posts/sync', { timestamp: NOW, signedBody: other }, 'signature_mismatch');
    // The same JSON re-serialised with different spacing is different bytes.
    const raw = JSON.stringify(sync(900));
    await expectRefused(
      'posts/sync',
      { timestamp: NOW, raw: JSON.stringify(sync(900), null, 2), signedBody: raw },
      'signature_mismatch',
    );
  });

  test('signed with another token’s plaintext, or the signing secret, → signature_mismatch', async () => {
    for (const route of SIGNED_ROUTES) {
      await expectRefused(route, { timestamp: NOW, key: otherToken }, 'signature_mismatch');
    }
    const secret = await s.t.database.db
      .selectFrom('api_tokens')
      .select('shopper_signing_secret')
      .where('id', '=', s.site.tokenId)
      .executeTakeFirstOrThrow();
    await expectRefused(
      'posts/sync',
      { timestamp: NOW, key: secret.shopper_signing_secret },
      'signature_mismatch',
    );
  });

  test('malformed signature headers → signature_mismatch', async () => {
    const raw = JSON.stringify(sync(900));
    const v1 = computeSignature(s.site.token, NOW, raw);
    const malformed = [
      `t=${NOW}`,
      `v1=${v1}`,
      `t=${NOW},v1=`,
      `t=${NOW},v1=${'z'.repeat(64)}`,
      `t=${NOW},v1=${v1.slice(0, 63)}`,
      `t=${NOW},v1=${v1}00`,
      `t=${NOW},v1=${v1.slice(0, 32)}`,
      `t=abc,v1=${v1}`,
      `t=${NOW}.0,v1=${v1}`,
      `t=-${NOW},v1=${v1}`,
      `t=,v1=${v1}`,
      `t=${NOW},v1=${v1},v0=${v1}`,
      `t=${NOW},v1=${v1},t=${NOW}`,
      `t=${NOW},t=${NOW}`,
      `t=${NOW}, v1=${v1}`,
      `t=${NOW};v1=${v1}`,
      `T=${NOW},V1=${v1}`,
      `${NOW},${v1}`,
      v1,
      'garbage',
    ];
    for (const header of malformed) {
      await expectRefused('posts/sync', { header, raw }, 'signature_mismatch');
    }
  });

  test('control: hand-built headers in either order, upper-case hex, are accepted', async () => {
    const body = sync(10);
    const raw = JSON.stringify(body);
    const v1 = computeSignature(s.site.token, NOW, raw);
    const res = await s.post('posts/sync', body, {
      header: `v1=${v1.toUpperCase()},t=${NOW}`,
    });
    assert.deepEqual(expectData(res, 200, ZSyncResult), {
      queued: 1,
      skipped_unchanged: 0,
      deleted: 0,
      failed: 0,
      failures: [],
    });
  });

  test('forged malformed JSON → 401 (signature first); unsigned → missing_signature', async () => {
    const raw = '{"agent_id": "x", ';
    await expectRefused(
      'posts/sync',
      { raw, header: signRequest(otherToken, raw, NOW) },
      'signature_mismatch',
    );
    await expectRefused('posts/sync', { raw, timestamp: NOW - 301 }, 'signature_mismatch');
    await expectRefused('posts/sync', { raw, header: null }, 'missing_signature');
  });

  test('correctly signed malformed JSON → 400 malformed_json; nothing stored', async () => {
    for (const raw of ['{"agent_id": "x", ', 'not json', '{"posts": [}', '']) {
      await expectRefused('posts/sync', { raw, timestamp: NOW }, 'malformed_json', 400);
    }
  });

  test('signed prototype poisoning → 400 malformed_json; nothing stored', async () => {
    const valid = JSON.stringify(sync(902));
    const bodies = [
      `{"__proto__":{"polluted":true},${valid.slice(1)}`,
      `${valid.slice(0, -1)},"constructor":{"prototype":{"polluted":true}}}`,
      `{"agent_id":"${s.site.agentId}","site_url":"https://shop.example.com","plugin_version":"1","posts":[{"__proto__":{"wp_id":5}}]}`,
    ];
    for (const raw of bodies) {
      await expectRefused('posts/sync', { raw, timestamp: NOW }, 'malformed_json', 400);
    }
    assert.equal(Object.hasOwn(Object.prototype, 'polluted'), false);
  });

  test('a replayed request (outside the window) leaves the token’s last_used_at alone', async () => {
    const tokens = s.t.database.db.updateTable('api_tokens').where('id', '=', s.site.tokenId);
    await tokens.set({ last_used_at: null }).execute();
    const res = await s.post('posts/sync', sync(903), { timestamp: NOW - 301 });
    expectError(res, 401, 'signature_mismatch');
    const row = await s.t.database.db
      .selectFrom('api_tokens')
      .select('last_used_at')
      .where('id', '=', s.site.tokenId)
      .executeTakeFirstOrThrow();
    assert.equal(row.last_used_at, null);
  });

  test('a signed body is verified over the raw bytes: a valid signature on a valid body works', async () => {
    // Whitespace and key order are the plugin's business: the signature covers the exact bytes.
    const body = sync(11);
    const raw = `  ${JSON.stringify(body, null, 4)}\n`;
    const res = await s.post('posts/sync', body, { raw, timestamp: NOW });
    assert.deepEqual(expectData(res, 200, ZSyncResult), {
      queued: 1,
      skipped_unchanged: 0,
      deleted: 0,
      failed: 0,
      failures: [],
    });
    const ids = (await documentsOf(s.t, s.site.agentId)).map((doc) => doc.external_id);
    assert.deepEqual(ids, ['1', '10', '11', '2', '3']);
  });
});
