// The contract's HMAC vectors (packages/contract/fixtures/hmac-vectors.json), checked end to
// end: each one is sent to a signed route with its exact body bytes and header, the bearer
// being the vector's key. The signature must pass for every valid vector and fail, with the
// right code, for every invalid one.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import fixture from '@service/contract/fixtures/hmac-vectors.json' with { type: 'json' };
import { z } from 'zod';
import { newId } from '../src/security/ids.js';
import { createTestApp, seedTenant, type TestApp } from './support/test-app.js';

const ZVector = z.object({
  name: z.string(),
  key: z.string(),
  now: z.number().int(),
  body: z.string(),
  header: z.string().nullable(),
  expected: z.enum(['ok', 'missing', 'mismatch']),
});
type Vector = z.infer<typeof ZVector>;

const vectors: Vector[] = [
  ...fixture.valid.map((vector) => ZVector.parse({ ...vector, expected: 'ok' })),
  ...fixture.invalid.map((vector) => ZVector.parse(vector)),
];

const ROUTE = '/api/v1/wp/coupons/sync';

/** One app per verifier clock (unix seconds), its tokens inserted straight into its database. */
const apps = new Map<number, TestApp>();

async function prepare(now: number, keys: string[]): Promise<TestApp> {
  // Plenty of requests per token: this file checks signatures, not the throttle.
  const t = await createTestApp({
    clock: { now: () => new Date(now * 1000) },
    env: { WP_THROTTLE_PER_MINUTE: '10000' },
  });
  const tenant = await seedTenant(t);
  for (const key of new Set(keys)) {
    await t.database.db
      .insertInto('api_tokens')
      .values({
        id: newId(),
        workspace_id: tenant.workspace.id,
        name: 'vector token',
        token_hash: createHash('sha256').update(key, 'utf8').digest('hex'),
        token_prefix: key.slice(0, 12),
        abilities: ['wp:integration'],
        shopper_signing_secret: createHash('sha256').update(`secret:${key}`).digest('hex'),
      })
      .execute();
  }
  return t;
}

const clocks = new Map<number, string[]>();
for (const vector of vectors) clocks.set(vector.now, [...(clocks.get(vector.now) ?? []), vector.key]);

before(async () => {
  for (const [now, keys] of clocks) apps.set(now, await prepare(now, keys));
});
after(async () => {
  for (const t of apps.values()) await t.close();
});

function appFor(vector: Vector): TestApp {
  const t = apps.get(vector.now);
  assert.ok(t, `no app for clock ${vector.now}`);
  return t;
}

function send(vector: Vector) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${vector.key}`,
    'content-type': 'application/json',
  };
  if (vector.header !== null) headers['x-service-signature'] = vector.header;
  return appFor(vector).app.inject({
    method: 'POST',
    url: ROUTE,
    headers,
    payload: Buffer.from(vector.body, 'utf8'),
  });
}

test('the vectors use more than one clock, and every app is built once', () => {
  assert.ok(clocks.size >= 2);
  assert.equal(apps.size, clocks.size);
});

describe('valid vectors pass the signature check', () => {
  for (const vector of vectors.filter((candidate) => candidate.expected === 'ok')) {
    test(vector.name, async () => {
      const response = await send(vector);
      assert.notEqual(response.statusCode, 401, response.body);
      // The bodies are not coupons of an agent of this workspace: what comes back is the
      // next check after the signature (malformed JSON, validation, unknown agent).
      const answer = z.object({ code: z.string() }).parse(response.json());
      assert.ok(
        [
          [400, 'malformed_json'],
          [422, 'validation_failed'],
          [404, 'not_found'],
        ].some(([status, code]) => response.statusCode === status && answer.code === code),
        `${response.statusCode} ${response.body}`,
      );
    });
  }
});

describe('invalid vectors are refused with 401', () => {
  for (const vector of vectors.filter((candidate) => candidate.expected !== 'ok')) {
    const code = vector.expected === 'missing' ? 'missing_signature' : 'signature_mismatch';
    test(`${vector.name} → ${code}`, async () => {
      const response = await send(vector);
      assert.equal(response.statusCode, 401, response.body);
      assert.equal(response.json().code, code);
    });
  }
  test('the header-less vector is missing_signature', () => {
    const none = vectors.filter((vector) => vector.header === null);
    assert.ok(none.length > 0);
    for (const vector of none) assert.equal(vector.expected, 'missing');
  });
});

test('a valid vector with its signature removed or its bearer unknown is refused', async () => {
  const vector = vectors.find((candidate) => candidate.expected === 'ok' && candidate.body !== '');
  assert.ok(vector);
  const unsigned = await send({ ...vector, header: null });
  assert.equal(unsigned.statusCode, 401);
  assert.equal(unsigned.json().code, 'missing_signature');
  // A key that is not a stored token never reaches the signature check.
  const stranger = await send({ ...vector, key: `${vector.key}x` });
  assert.equal(stranger.statusCode, 401);
  assert.equal(stranger.json().code, 'unauthenticated');
});
