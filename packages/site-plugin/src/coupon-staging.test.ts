import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STAGED_COUPON_TTL_SECONDS } from '@service/contract';
import {
  bodyOf,
  createClock,
  createTestStore,
  errorCodeOf,
  SECRET,
  signedRequest,
  type TestCart,
} from '../test/plugin-fixtures.js';
import { readConversationCookie, STAGED_COUPON_KEY_PREFIX, takeStagedCoupon } from './coupon-staging.js';
import { createMemoryStore } from './memory-store.js';
import { createSitePlugin } from './plugin.js';
import type { KeyValueStore } from './site-store.js';

function setup(staging?: KeyValueStore) {
  const clock = createClock();
  const store = createTestStore();
  const plugin = createSitePlugin<TestCart>({
    store,
    signingSecret: () => SECRET,
    now: clock.now,
    ...(staging ? { staging } : {}),
  });
  const stage = async (body: unknown) => {
    const answer = await plugin.handle(
      signedRequest({ route: 'cart/coupon', body, timestamp: clock.seconds() }),
    );
    return { status: answer?.status, body: bodyOf(answer), code: errorCodeOf(answer) };
  };
  const loadCart = (cookieHeader: string | null, cart: TestCart = { id: 'cart', coupons: [] }) =>
    plugin.applyStagedCoupon({ cookieHeader, cart });
  return { clock, store, plugin, stage, loadCart };
}

describe('cart/coupon and applyStagedCoupon', () => {
  it('stages, applies on the next cart load, and applies nothing on the load after', async () => {
    const { stage, loadCart } = setup();
    const staged = await stage({ code: 'WELCOME10', conversation_id: 'conv-1' });
    assert.equal(staged.status, 200);
    assert.deepEqual(staged.body, {
      data: { applied: false, pending: true, message: 'Coupon WELCOME10 will be applied to your next cart.' },
    });
    const cart: TestCart = { id: 'cart-1', coupons: [] };
    assert.deepEqual(await loadCart('theme=dark; svc_conversation=conv-1; other=1', cart), {
      code: 'WELCOME10',
      applied: true,
    });
    assert.deepEqual(cart.coupons, ['WELCOME10']);
    assert.equal(await loadCart('svc_conversation=conv-1', cart), null);
    assert.deepEqual(cart.coupons, ['WELCOME10']);
  });

  it('keeps a staged code for 15 min − 1 s and loses it at 15 min + 1 s', async () => {
    const early = setup();
    await early.stage({ code: 'WELCOME10', conversation_id: 'conv-1' });
    early.clock.advance(STAGED_COUPON_TTL_SECONDS - 1);
    assert.deepEqual(await early.loadCart('svc_conversation=conv-1'), { code: 'WELCOME10', applied: true });

    const late = setup();
    await late.stage({ code: 'WELCOME10', conversation_id: 'conv-1' });
    late.clock.advance(STAGED_COUPON_TTL_SECONDS + 1);
    assert.equal(await late.loadCart('svc_conversation=conv-1'), null);
  });

  it('applies only to the conversation it was staged for', async () => {
    const { stage, loadCart } = setup();
    await stage({ code: 'WELCOME10', conversation_id: 'conv-1' });
    assert.equal(await loadCart('svc_conversation=conv-2'), null);
    assert.equal(await loadCart(null), null);
    assert.equal(await loadCart(''), null);
    assert.deepEqual(await loadCart('svc_conversation=conv-1'), { code: 'WELCOME10', applied: true });
  });

  it('reports applied false when the site refuses the code at apply time, and does not retry it', async () => {
    const { stage, loadCart, store } = setup();
    await stage({ code: 'WELCOME10', conversation_id: 'conv-1' });
    store.refused.add('WELCOME10');
    assert.deepEqual(await loadCart('svc_conversation=conv-1'), { code: 'WELCOME10', applied: false });
    assert.equal(await loadCart('svc_conversation=conv-1'), null);
  });

  it('answers 400 invalid_coupon for an unknown code, without staging', async () => {
    const { stage, loadCart } = setup();
    const answer = await stage({ code: 'NOPE', conversation_id: 'conv-1' });
    assert.equal(answer.status, 400);
    assert.equal(answer.code, 'invalid_coupon');
    assert.equal(await loadCart('svc_conversation=conv-1'), null);
  });

  it('answers 400 commerce_inactive when the shop is off, without staging', async () => {
    const { stage, loadCart, store } = setup();
    store.commerceActive = false;
    const answer = await stage({ code: 'WELCOME10', conversation_id: 'conv-1' });
    assert.equal(answer.status, 400);
    assert.equal(answer.code, 'commerce_inactive');
    assert.equal(await loadCart('svc_conversation=conv-1'), null);
  });

  it('answers 400 rest_invalid_param for a bad body, without staging', async () => {
    const { stage, loadCart } = setup();
    for (const body of [
      { code: 'WELCOME10' },
      { code: '', conversation_id: 'conv-1' },
      { code: 'WELCOME10', conversation_id: 'conv-1', x: 1 },
    ]) {
      const answer = await stage(body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.code, 'rest_invalid_param');
    }
    assert.match(JSON.stringify((await stage({ code: 'WELCOME10' })).body), /conversation_id/);
    assert.equal(await loadCart('svc_conversation=conv-1'), null);
  });

  it('stages under staged-coupon:<conversation_id> with a 15-minute TTL in a pluggable store', async () => {
    const writes: { key: string; value: string; ttl: number | undefined }[] = [];
    const inner = createMemoryStore();
    // A Redis-like store without `take`: the SDK falls back to get + delete.
    const staging: KeyValueStore = {
      get: (key) => inner.get(key),
      delete: (key) => inner.delete(key),
      async set(key, value, ttl) {
        writes.push({ key, value, ttl });
        await inner.set(key, value, ttl);
      },
    };
    const { stage, loadCart } = setup(staging);
    await stage({ code: 'WELCOME10', conversation_id: 'conv-1' });
    assert.deepEqual(writes, [{ key: `${STAGED_COUPON_KEY_PREFIX}conv-1`, value: 'WELCOME10', ttl: 900 }]);
    assert.deepEqual(await loadCart('svc_conversation=conv-1'), { code: 'WELCOME10', applied: true });
    assert.equal(await inner.get(`${STAGED_COUPON_KEY_PREFIX}conv-1`), null);
    assert.equal(await takeStagedCoupon(staging, 'conv-1'), null);
  });

  it('a second staging for the same conversation replaces the first', async () => {
    const { stage, loadCart, store } = setup();
    store.coupons.add('SUMMER5');
    await stage({ code: 'WELCOME10', conversation_id: 'conv-1' });
    await stage({ code: 'SUMMER5', conversation_id: 'conv-1' });
    assert.deepEqual(await loadCart('svc_conversation=conv-1'), { code: 'SUMMER5', applied: true });
  });
});

describe('readConversationCookie', () => {
  it('finds the cookie among others, tolerant of spacing and quotes, URL-decoded', () => {
    assert.equal(readConversationCookie('svc_conversation=abc'), 'abc');
    assert.equal(readConversationCookie('a=1;svc_conversation=abc;b=2'), 'abc');
    assert.equal(readConversationCookie('  a=1 ;  svc_conversation = abc  ; b'), 'abc');
    assert.equal(readConversationCookie('svc_conversation="abc"'), 'abc');
    assert.equal(readConversationCookie('svc_conversation=01J%3Aconv%20id'), '01J:conv id');
    assert.equal(readConversationCookie('svc_conversation=bad%zzcode'), 'bad%zzcode');
    assert.equal(readConversationCookie('x_svc_conversation=abc; svc_conversation_old=def'), null);
    assert.equal(readConversationCookie('junk; svc_conversation; =x; svc_conversation=ok'), 'ok');
  });

  it('is null for no header, no cookie, an empty value or an over-long one', () => {
    assert.equal(readConversationCookie(undefined), null);
    assert.equal(readConversationCookie(null), null);
    assert.equal(readConversationCookie(''), null);
    assert.equal(readConversationCookie('a=1; b=2'), null);
    assert.equal(readConversationCookie('svc_conversation='), null);
    assert.equal(readConversationCookie(`svc_conversation=${'a'.repeat(65)}`), null);
    assert.equal(readConversationCookie(`svc_conversation=${'a'.repeat(64)}`), 'a'.repeat(64));
  });
});
