// The plugin routes on a real WordPress without WooCommerce, called as the service calls them:
// every verification error code in the contract's order (before the body is parsed), the
// 300 s window at its edge, bad bodies, the commerce-inactive answers, the lead upsert rules,
// and at the end the uninstall that removes the plugin's options.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signRequest } from '@service/contract';
import { freePort } from '../../../examples/demo-shop/test/support/loopback.js';
import { errorCode, pluginClient, unixNow } from './support/plugin-calls.js';
import { connectPlugin, signingSecretOf, startWpService, type WpService } from './support/service.js';
import { phpString, startWordPress, type WordPress, wordpressMissing } from './support/wordpress.js';

const missing = wordpressMissing();

describe('plugin routes on a real WordPress', { skip: missing ?? false }, () => {
  let wp: WordPress;
  let svc: WpService;
  let secret = '';
  let call: ReturnType<typeof pluginClient>;

  before(async () => {
    const port = await freePort();
    svc = await startWpService(port);
    // A copy of the plugin: the uninstall test deletes it through WordPress.
    wp = await startWordPress({ port, servicePort: svc.port, copyPlugin: true });
    call = pluginClient(wp, () => secret);
  });
  after(async () => {
    await wp?.close();
    await svc?.close();
  });

  const lookup = { wp_user_id: 1, limit: 5 };

  test('before the handshake: missing_signature, then plugin_unconfigured', async () => {
    const unsigned = await call('orders/lookup', lookup, { header: null });
    assert.equal(unsigned.status, 401, JSON.stringify(unsigned.json));
    assert.equal(errorCode(unsigned), 'missing_signature');
    const empty = await call('leads', {}, { header: '' });
    assert.equal(empty.status, 401);
    assert.equal(errorCode(empty), 'missing_signature');
    const signed = await call('orders/lookup', lookup, { secret: 'any-secret' });
    assert.equal(signed.status, 401, JSON.stringify(signed.json));
    assert.equal(errorCode(signed), 'plugin_unconfigured');
    assert.equal(signed.headers.get('cache-control')?.includes('no-store'), true, 'answers are not cached');
  });

  test('connected: a right signature passes, a wrong one, a malformed header and an old timestamp do not', async () => {
    secret = signingSecretOf(await connectPlugin(wp, svc));
    const ok = await call('orders/lookup', lookup);
    assert.equal(ok.status, 200, JSON.stringify(ok.json));

    const wrong = await call('orders/lookup', lookup, { secret: `${secret}x` });
    assert.equal(wrong.status, 401);
    assert.equal(errorCode(wrong), 'signature_mismatch');
    const raw = JSON.stringify(lookup);
    const now = unixNow();
    const good = signRequest(secret, raw, now);
    const v1 = good.split('v1=')[1] ?? '';
    for (const header of [
      `t=0${now},v1=${v1}`, // a leading zero
      `t=${now},v1=${v1.slice(1)}`, // 63 hex digits
      `t=${now},v1=${v1.toUpperCase()}x`,
      `v1=${v1},t=${now},t=${now}`,
      `t=${now}`,
      'garbage',
    ]) {
      const answer = await call('orders/lookup', lookup, { header, raw });
      assert.equal(answer.status, 401, header);
      assert.equal(errorCode(answer), 'signature_mismatch', header);
    }
    const signedOtherBody = await call('orders/lookup', lookup, {
      header: good,
      raw: JSON.stringify({ ...lookup, limit: 6 }),
    });
    assert.equal(errorCode(signedOtherBody), 'signature_mismatch', 'the signature covers the raw body');

    const old = await call('orders/lookup', lookup, { timestamp: unixNow() - 301 });
    assert.equal(old.status, 401);
    assert.equal(errorCode(old), 'signature_mismatch');
    const future = await call('orders/lookup', lookup, { timestamp: unixNow() + 302 });
    assert.equal(errorCode(future), 'signature_mismatch', 'more than 300 s ahead is refused too');
    // 300 s is still inside the window (ahead, so the request's own travel time cannot push it out).
    const edge = await call('orders/lookup', lookup, { timestamp: unixNow() + 300 });
    assert.equal(edge.status, 200, JSON.stringify(edge.json));
  });

  test('the signature is checked before the body is parsed; a bad body is rest_invalid_param', async () => {
    const unsignedJunk = await call('leads', null, { header: null, raw: '{not json' });
    assert.equal(errorCode(unsignedJunk), 'missing_signature');
    const wrongJunk = await call('leads', null, { secret: 'nope', raw: '{not json' });
    assert.equal(errorCode(wrongJunk), 'signature_mismatch');

    for (const [route, body] of [
      ['orders/lookup', { wp_user_id: 'one', limit: 5 }],
      ['orders/lookup', { wp_user_id: 1, limit: 500 }],
      ['leads', { name: 'No email', phone: '', conversation_id: 'c', service_lead_id: 'l' }],
      ['cart/coupon', { code: 42 }],
    ] as const) {
      const answer = await call(route, body);
      assert.equal(answer.status, 400, `${route} ${JSON.stringify(body)}: ${JSON.stringify(answer.json)}`);
      assert.equal(errorCode(answer), 'rest_invalid_param', route);
    }
    const junk = await call('leads', null, { raw: '{not json' });
    assert.equal(junk.status, 400);
    assert.equal(errorCode(junk), 'rest_invalid_param');
    const users = await wp.users();
    assert.deepEqual(
      users.map((user) => user.email),
      ['admin@example.com'],
      'no bad request created a user',
    );
  });

  test('without WooCommerce: orders/lookup is 200 with the commerce_inactive note, cart/coupon is 400', async () => {
    const orders = await call('orders/lookup', { wp_user_id: 1 });
    assert.equal(orders.status, 200, JSON.stringify(orders.json));
    assert.deepEqual(orders.json.data, { orders: [], count: 0, note: 'commerce_inactive' });
    const coupon = await call('cart/coupon', { code: 'WELCOME10', conversation_id: 'conv_1' });
    assert.equal(coupon.status, 400, JSON.stringify(coupon.json));
    assert.equal(errorCode(coupon), 'commerce_inactive');
  });

  test('leads: a user per email in any case, never a changed role or password, never an administrator edited', async () => {
    const lead = {
      email: 'Rosa.Lind@Example.com',
      name: 'Rosa Lind',
      phone: '+33 4 72 00 00 00',
      conversation_id: 'conv_lead_1',
      service_lead_id: 'lead_1',
    };
    const created = await call('leads', lead);
    assert.equal(created.status, 200, JSON.stringify(created.json));
    const userId = (created.json.data as { user_id?: unknown }).user_id;
    assert.equal(typeof userId, 'number');
    const again = await call('leads', {
      ...lead,
      email: 'rosa.lind@example.COM',
      phone: '+33 4 72 11 11 11',
    });
    assert.equal(again.status, 200, JSON.stringify(again.json));
    assert.deepEqual(again.json.data, { user_id: userId }, 'the same email in another case is the same user');
    const users = await wp.users();
    const rosa = users.filter((user) => user.email.toLowerCase() === 'rosa.lind@example.com');
    assert.equal(rosa.length, 1);
    assert.deepEqual(rosa[0]?.roles, ['subscriber']);

    const before = await wp.php<{ pass: string; name: string }>(
      `$u = get_userdata(1); return ['pass' => $u->user_pass, 'name' => $u->display_name];`,
    );
    const admin = await call('leads', {
      ...lead,
      email: 'ADMIN@example.com',
      name: 'Mallory',
      service_lead_id: 'lead_2',
    });
    assert.equal(admin.status, 200, JSON.stringify(admin.json));
    assert.deepEqual(admin.json.data, { user_id: 1 });
    const afterAdmin = await wp.php<{ pass: string; name: string; roles: string[] }>(
      `$u = get_userdata(1); return ['pass' => $u->user_pass, 'name' => $u->display_name, 'roles' => array_values($u->roles)];`,
    );
    assert.deepEqual(
      afterAdmin,
      { ...before, roles: ['administrator'] },
      "the administrator's account is untouched",
    );
  });

  test('uninstall removes the plugin options', async () => {
    const before = await wp.php<string[]>(
      `global $wpdb; return $wpdb->get_col("SELECT option_name FROM {$wpdb->options} WHERE option_name LIKE 'chat\\\\_agent\\\\_%'");`,
    );
    assert.ok(before.includes('chat_agent_handshake'), JSON.stringify(before));
    const deleted = await wp.php<boolean | string>(`
      deactivate_plugins('chat-agent/chat-agent.php');
      $result = delete_plugins(['chat-agent/chat-agent.php']);
      return is_wp_error($result) ? $result->get_error_message() : $result;
    `);
    assert.equal(deleted, true);
    const left = await wp.php<string[]>(
      `global $wpdb; return $wpdb->get_col("SELECT option_name FROM {$wpdb->options} WHERE option_name LIKE '%chat\\\\_agent%'");`,
    );
    assert.deepEqual(left, [], 'no chat_agent option (nor transient) is left');
    const events = await wp.php<string[]>(`
      $hooks = [];
      foreach ((array) _get_cron_array() as $time => $byHook) {
        foreach ((array) $byHook as $hook => $unused) { if (strpos((string) $hook, 'chat_agent') === 0) { $hooks[] = $hook; } }
      }
      return $hooks;
    `);
    assert.deepEqual(events, [], 'no scheduled event is left');
    assert.equal(await wp.php(`return file_exists(WP_PLUGIN_DIR . ${phpString('/chat-agent')});`), false);
  });

  test('the plugin left no PHP error, warning or notice in debug.log', async () => {
    assert.deepEqual(wp.pluginNotices(), []);
  });
});
