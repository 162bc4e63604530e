// `bin/try.sh`: the plugin on a fresh Debian WordPress next to the real service, for a person to
// click through. The same harness as the integration tests: WordPress on 127.0.0.1 (php -S,
// MariaDB), the plugin active but not connected, a few sample posts; the service on the embedded
// store with a workspace, a published agent and a wp:integration token. Ctrl-C stops both and
// drops the database.
import { freePort } from '../../../../examples/demo-shop/test/support/loopback.js';
import { startWpService } from './service.js';
import { ADMIN, startWordPress, wordpressMissing } from './wordpress.js';

const missing = wordpressMissing();
if (missing) {
  console.error(`Cannot start WordPress: ${missing}.`);
  console.error(
    'Install: apt-get install php-cli php-mysql php-xml php-mbstring php-curl wordpress mariadb-server',
  );
  process.exit(1);
}

const port = Number(process.env.WP_PORT ?? 0) || (await freePort());
console.log('Starting the service and WordPress (about 15 s)…');
const svc = await startWpService(port);
const wp = await startWordPress({ port, servicePort: svc.port, title: 'Coffee journal (try it)' });
await wp.php(`
  $posts = [
    ['Cold brew at home', 'Steep coarse ground coffee in cold water for eighteen hours, then filter it twice.'],
    ['Our espresso blend', 'Brazil and Ethiopia beans, roasted medium dark, for a sweet and round espresso.'],
    ['Shipping and returns', 'We ship in two working days in Europe. Unopened bags can be returned within 30 days.'],
  ];
  foreach ($posts as [$title, $text]) {
    wp_insert_post(['post_status' => 'publish', 'post_title' => $title, 'post_content' => '<p>' . $text . '</p>']);
  }
  return true;
`);

console.log(`
WordPress   ${wp.url}/wp-admin/  (user ${ADMIN.user}, password ${ADMIN.password})
Settings    ${wp.url}/wp-admin/options-general.php?page=chat-agent
Service     ${svc.base}
  Service URL  ${svc.base}
  API token    ${svc.token}
  Agent        ${svc.agentName} (${svc.agentId})

On the settings page: paste the service URL and the token, Save Changes, Test connection, pick
the agent, Save Changes, then Sync now. Open ${wp.url}/ to ask the widget about a post.
Ctrl-C stops everything.`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping…');
  await wp.close();
  await svc.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
