// The zip a site owner uploads: bin/build-zip.sh builds it, and a real WordPress installs it
// through the same code path as Plugins → Add New → Upload Plugin (Plugin_Upgrader), activates
// it, and answers its routes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../../examples/demo-shop/test/support/loopback.js';
import { errorCode, pluginClient } from './support/plugin-calls.js';
import { phpString, startWordPress, type WordPress, wordpressMissing } from './support/wordpress.js';

const missing = wordpressMissing();
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

describe('the plugin zip installs through WordPress', { skip: missing ?? false }, () => {
  let wp: WordPress;
  let zip: string;

  before(async () => {
    zip = join(
      PACKAGE,
      execFileSync('sh', [join(PACKAGE, 'bin', 'build-zip.sh')], { encoding: 'utf8' }).trim(),
    );
    wp = await startWordPress({ port: await freePort(), plugin: false });
  });
  after(async () => {
    await wp?.close();
  });

  test('the zip holds chat-agent/ with its main file, readme.txt, uninstall.php and the .pot', async () => {
    // PclZip, WordPress's own reader (the zip extension is not needed, as on many hosts).
    const names = await wp.php<string[]>(`
      require_once ABSPATH . 'wp-admin/includes/class-pclzip.php';
      $list = (new PclZip(${phpString(zip)}))->listContent();
      return is_array($list) ? array_map(static fn ($entry) => $entry['filename'], $list) : [];
    `);
    for (const name of [
      'chat-agent/chat-agent.php',
      'chat-agent/readme.txt',
      'chat-agent/uninstall.php',
      'chat-agent/languages/chat-agent.pot',
    ]) {
      assert.ok(names.includes(name), `${name} is in the zip: ${names.join(', ')}`);
    }
    assert.deepEqual(
      names.filter((name) => !name.startsWith('chat-agent/')),
      [],
      'everything sits under one root folder',
    );
  });

  test('Plugin_Upgrader installs it, it activates, and its routes answer', async () => {
    const installed = await wp.php<{ result: unknown; active: boolean; version: string }>(`
      require_once ABSPATH . 'wp-admin/includes/file.php';
      require_once ABSPATH . 'wp-admin/includes/plugin.php';
      require_once ABSPATH . 'wp-admin/includes/class-wp-upgrader.php';
      WP_Filesystem();
      $upgrader = new Plugin_Upgrader(new Automatic_Upgrader_Skin());
      $result = $upgrader->install(${phpString(zip)});
      $activated = activate_plugin('chat-agent/chat-agent.php');
      $data = get_plugin_data(WP_PLUGIN_DIR . '/chat-agent/chat-agent.php');
      return [
        'result' => is_wp_error($result) ? $result->get_error_message() : $result,
        'active' => $activated === null && is_plugin_active('chat-agent/chat-agent.php'),
        'version' => $data['Version'],
      ];
    `);
    assert.equal(installed.result, true, JSON.stringify(installed));
    assert.equal(installed.active, true);
    assert.match(installed.version, /^\d+\.\d+\.\d+$/);
    // Installed from the zip and active: its route answers (nothing is configured yet).
    const call = pluginClient(wp, () => '');
    const unsigned = await call('leads', {}, { header: null });
    assert.equal(unsigned.status, 401);
    assert.equal(errorCode(unsigned), 'missing_signature');
  });

  test('deactivating stops the schedules and keeps the settings', async () => {
    const cronHooks = `
      $hooks = [];
      foreach ((array) _get_cron_array() as $byHook) {
        foreach ((array) $byHook as $hook => $unused) { if (strpos((string) $hook, 'chat_agent') === 0) { $hooks[] = $hook; } }
      }
      sort($hooks);
      return $hooks;
    `;
    const scheduled = await wp.php<string[]>(`
      update_option('chat_agent_service_url', 'http://127.0.0.1:9');
      wp_schedule_single_event(time() + 300, 'chat_agent_sync_batch');
      wp_schedule_single_event(time() + 300, 'chat_agent_delta');
      ${cronHooks}
    `);
    assert.deepEqual(scheduled, ['chat_agent_delta', 'chat_agent_sync_batch']);
    const after = await wp.php<{ hooks: string[]; url: unknown }>(`
      require_once ABSPATH . 'wp-admin/includes/plugin.php';
      deactivate_plugins('chat-agent/chat-agent.php');
      $hooks = (function () { ${cronHooks} })();
      return ['hooks' => $hooks, 'url' => get_option('chat_agent_service_url')];
    `);
    assert.deepEqual(after, { hooks: [], url: 'http://127.0.0.1:9' });
  });
});
