// A fresh, real WordPress per test file: Debian's `wordpress` package (/usr/share/wordpress)
// copied as hard links into a per-run docroot (its own wp-config.php and wp-content, so no
// shared /etc/wordpress state is read or written), a fresh MariaDB database (dropped at the
// end), `php -S` on a free loopback port with a router and 4 workers (WordPress calls itself
// for WP-Cron and REST), pretty permalinks, an admin with a known password and the plugin
// (chat-agent/) activated. Everything stays on 127.0.0.1.
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../../../examples/demo-shop/test/support/loopback.js';

/** Debian's WordPress. */
export const WORDPRESS_DIR = process.env.WORDPRESS_DIR ?? '/usr/share/wordpress';
/** This package's folder. */
export const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));
/** The plugin as the zip ships it. */
export const PLUGIN_DIR = process.env.CHAT_AGENT_PLUGIN_DIR ?? join(PACKAGE_DIR, 'chat-agent');
/** The WooCommerce stand-in (tests only), loaded as a must-use plugin when asked for. */
export const WOO_STAND_IN_DIR =
  process.env.CHAT_AGENT_WOO_STAND_IN_DIR ?? join(PACKAGE_DIR, 'tests', 'woocommerce-stand-in');
const PHP_SUPPORT = fileURLToPath(new URL('./php/', import.meta.url));
const DB_HOST = process.env.WORDPRESS_DB_HOST ?? '127.0.0.1';
const DB_PORT = Number(process.env.WORDPRESS_DB_PORT ?? 3306);

/** The admin every harness WordPress has. */
export const ADMIN = { user: 'admin', password: 'correct-horse-battery-staple', email: 'admin@example.com' };

const onPath = (name: string) =>
  spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;

/** Checks that php (with mysqli), MariaDB and WordPress are here; installs them with apt-get as root. Returns why not, or null. */
export function wordpressMissing(): string | null {
  const missing = () => {
    if (!onPath('php')) return 'php is not installed';
    if (spawnSync('php', ['-r', 'exit(extension_loaded("mysqli") ? 0 : 1);']).status !== 0)
      return 'php has no mysqli (php-mysql)';
    if (!existsSync(join(WORDPRESS_DIR, 'wp-settings.php'))) return `WordPress is not at ${WORDPRESS_DIR}`;
    const db = spawnSync('php', [
      '-r',
      `mysqli_report(MYSQLI_REPORT_OFF); exit(@mysqli_connect("${DB_HOST}", "root", "", "", ${DB_PORT}) ? 0 : 1);`,
    ]);
    if (db.status !== 0) return `MariaDB does not answer on ${DB_HOST}:${DB_PORT} as root without a password`;
    return null;
  };
  const first = missing();
  if (first === null || first.startsWith('MariaDB')) return first;
  if (process.getuid?.() !== 0 || !onPath('apt-get')) return first;
  const options = {
    stdio: ['ignore', 'ignore', 'inherit'] as const,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  };
  spawnSync('apt-get', ['update', '-qq'], { ...options, stdio: [...options.stdio] });
  spawnSync(
    'apt-get',
    ['install', '-y', '-qq', 'php-cli', 'php-mysql', 'php-xml', 'php-mbstring', 'php-curl', 'wordpress'],
    { ...options, stdio: [...options.stdio] },
  );
  return missing();
}

/** Runs `php args…` (no shell), with `input` on stdin; rejects with stderr on a non-zero exit. */
export function runPhp(
  args: string[],
  options: { input?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'php',
      args,
      {
        env: { ...process.env, ...options.env },
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`php ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolve(stdout);
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

export type WordPressOptions = {
  /** Install and activate chat-agent/ (default true). */
  plugin?: boolean;
  /** Copy the plugin instead of symlinking it (tests that delete it through WordPress). */
  copyPlugin?: boolean;
  /** Load the WooCommerce stand-in as a must-use plugin. */
  wooStandIn?: boolean;
  /** The port to listen on (default: a free one). */
  port?: number;
  /** The loopback service's port, which outbound safe requests may reach. */
  servicePort?: number;
  title?: string;
};

/** A running WordPress and the helpers the tests drive it with. */
export type WordPress = {
  /** `http://127.0.0.1:<port>` (also the origin). */
  url: string;
  port: number;
  docroot: string;
  dbName: string;
  /** Runs PHP code (a function body) inside WordPress from the command line; returns its `return` value. */
  php<T = unknown>(code: string): Promise<T>;
  /** Creates `count` published posts titled `<prefix> N` quickly (one PHP process); returns their ids. */
  createPosts(count: number, options?: { prefix?: string; type?: 'post' | 'page' }): Promise<number[]>;
  /** Runs the due WP-Cron events once over HTTP (GET /wp-cron.php), after clearing a stale lock. */
  runCron(): Promise<void>;
  /** The users (id, login, email, roles). */
  users(): Promise<Array<{ id: number; login: string; email: string; roles: string[] }>>;
  /** An option's value (false when missing, as get_option). */
  option<T = unknown>(name: string): Promise<T | false>;
  /** The PHP server's output and WordPress's debug.log so far (for failure messages). */
  logs(): string;
  /** The debug.log entries (errors, warnings, notices, deprecations) that name the plugin's files. */
  pluginNotices(): string[];
  close(): Promise<void>;
};

/** PHP string literal for `value`. */
export const phpString = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function writeConfig(docroot: string, dbName: string, url: string): void {
  const salts = [
    'AUTH_KEY',
    'SECURE_AUTH_KEY',
    'LOGGED_IN_KEY',
    'NONCE_KEY',
    'AUTH_SALT',
    'SECURE_AUTH_SALT',
    'LOGGED_IN_SALT',
    'NONCE_SALT',
  ]
    .map((name) => `define('${name}', '${randomBytes(24).toString('hex')}');`)
    .join('\n');
  writeFileSync(
    join(docroot, 'wp-config.php'),
    `<?php
// Written by the test harness for one run (packages/wordpress-plugin/test/support/wordpress.ts).
define('DB_NAME', '${dbName}');
define('DB_USER', 'root');
define('DB_PASSWORD', '');
define('DB_HOST', '${DB_HOST}:${DB_PORT}');
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
${salts}
$table_prefix = 'wp_';
define('WP_HOME', '${url}');
define('WP_SITEURL', '${url}');
define('WP_CONTENT_DIR', __DIR__ . '/wp-content');
define('WP_CONTENT_URL', '${url}/wp-content');
define('WP_DEBUG', true);
define('WP_DEBUG_LOG', __DIR__ . '/debug.log');
define('WP_DEBUG_DISPLAY', false);
define('WP_ENVIRONMENT_TYPE', 'local');
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_AUTO_UPDATE_CORE', false);
define('DISALLOW_FILE_EDIT', true);
define('FS_METHOD', 'direct');
if (!defined('ABSPATH')) {
    define('ABSPATH', __DIR__ . '/');
}
require_once ABSPATH . 'wp-settings.php';
`,
  );
}

/** Makes the docroot: WordPress's files as hard links (a copy where links fail), our config and wp-content. */
function makeDocroot(options: WordPressOptions): string {
  const docroot = mkdtempSync(join(tmpdir(), 'wp-run-'));
  for (const entry of readdirSync(WORDPRESS_DIR)) {
    if (entry === 'wp-config.php' || entry === 'wp-content') continue;
    const from = join(WORDPRESS_DIR, entry);
    const linked = spawnSync('cp', ['-al', from, join(docroot, entry)]);
    if (linked.status !== 0) cpSync(from, join(docroot, entry), { recursive: true, verbatimSymlinks: true });
  }
  // Debian links some libraries (underscore.js, getID3) relatively into /usr/share: point the
  // copies at the originals' targets.
  const links = spawnSync(
    'find',
    [WORDPRESS_DIR, '-path', join(WORDPRESS_DIR, 'wp-content'), '-prune', '-o', '-type', 'l', '-print'],
    {
      encoding: 'utf8',
    },
  );
  for (const link of links.stdout.split('\n').filter(Boolean)) {
    const copy = join(docroot, relative(WORDPRESS_DIR, link));
    if (!existsSync(link)) continue;
    rmSync(copy, { force: true });
    symlinkSync(realpathSync(link), copy);
  }
  const content = join(docroot, 'wp-content');
  for (const dir of ['plugins', 'mu-plugins', 'uploads', 'upgrade'])
    mkdirSync(join(content, dir), { recursive: true });
  symlinkSync(join(WORDPRESS_DIR, 'wp-content', 'themes'), join(content, 'themes'));
  cpSync(join(PHP_SUPPORT, 'mu-harness.php'), join(content, 'mu-plugins', 'harness.php'));
  if (options.plugin !== false) {
    if (options.copyPlugin) cpSync(PLUGIN_DIR, join(content, 'plugins', 'chat-agent'), { recursive: true });
    else symlinkSync(PLUGIN_DIR, join(content, 'plugins', 'chat-agent'));
  }
  if (options.wooStandIn) {
    for (const file of readdirSync(WOO_STAND_IN_DIR)) {
      cpSync(join(WOO_STAND_IN_DIR, file), join(content, 'mu-plugins', file), { recursive: true });
    }
  }
  return docroot;
}

/** Signals the PHP server and the workers it forked (its process group, by its id). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

async function waitForHttp(url: string, server: ChildProcess, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (server.exitCode !== null) throw new Error(`php -S exited with ${server.exitCode}`);
    try {
      const response = await fetch(url, { redirect: 'manual' });
      await response.arrayBuffer();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`WordPress did not answer at ${url} within ${timeoutMs} ms`);
}

/** Installs and starts a fresh WordPress. */
export async function startWordPress(options: WordPressOptions = {}): Promise<WordPress> {
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const dbName = `wp_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const docroot = makeDocroot(options);
  writeConfig(docroot, dbName, url);
  const env: Record<string, string> = { HTTP_HOST: `127.0.0.1:${port}` };
  if (options.servicePort) env.CHAT_AGENT_TEST_SERVICE_PORT = String(options.servicePort);

  const dropDatabase = () =>
    runPhp([
      '-r',
      `mysqli_report(MYSQLI_REPORT_OFF); $db = @mysqli_connect("${DB_HOST}", "root", "", "", ${DB_PORT}); if ($db) { mysqli_query($db, "DROP DATABASE IF EXISTS \`${dbName}\`"); }`,
    ]).catch(() => '');

  let server: ChildProcess | undefined;
  let serverOutput = '';
  try {
    await runPhp(
      [
        join(PHP_SUPPORT, 'install.php'),
        docroot,
        JSON.stringify({
          db_name: dbName,
          title: options.title ?? 'Harness Coffee Journal',
          admin_user: ADMIN.user,
          admin_password: ADMIN.password,
          admin_email: ADMIN.email,
          plugins: options.plugin === false ? [] : ['chat-agent/chat-agent.php'],
        }),
      ],
      { env },
    );
    server = spawn('php', ['-S', `127.0.0.1:${port}`, '-t', docroot, join(PHP_SUPPORT, 'router.php')], {
      cwd: docroot,
      env: { ...process.env, ...env, PHP_CLI_SERVER_WORKERS: '4' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: the workers it forks are stopped with it.
      detached: true,
    });
    const keep = (chunk: Buffer) => {
      serverOutput = (serverOutput + chunk.toString('utf8')).slice(-20_000);
    };
    server.stdout?.on('data', keep);
    server.stderr?.on('data', keep);
    await waitForHttp(`${url}/wp-login.php`, server, 15_000);
  } catch (error) {
    if (server) signalGroup(server, 'SIGKILL');
    await dropDatabase();
    rmSync(docroot, { recursive: true, force: true });
    throw error;
  }
  const running = server;

  const debugTail = () => {
    const debugLog = join(docroot, 'debug.log');
    return existsSync(debugLog)
      ? spawnSync('tail', ['-c', '20000', debugLog], { encoding: 'utf8' }).stdout
      : '';
  };
  const php = async <T>(code: string): Promise<T> => {
    const out = await runPhp([join(PHP_SUPPORT, 'eval.php'), docroot], { input: code, env }).catch(
      (error: Error) => {
        throw new Error(`${error.message.slice(0, 2000)}\n--- debug.log ---\n${debugTail().slice(-4000)}`);
      },
    );
    const marker = out.lastIndexOf('@@RESULT@@');
    if (marker < 0) throw new Error(`no result from PHP:\n${out}`);
    return JSON.parse(out.slice(marker + '@@RESULT@@'.length)) as T;
  };

  return {
    url,
    port,
    docroot,
    dbName,
    php,
    createPosts(count, createOptions = {}) {
      const prefix = createOptions.prefix ?? 'Harness post';
      const type = createOptions.type ?? 'post';
      return php<number[]>(`
        $ids = [];
        for ($i = 1; $i <= ${Number(count)}; $i++) {
          $ids[] = wp_insert_post([
            'post_type' => ${phpString(type)},
            'post_status' => 'publish',
            'post_title' => ${phpString(prefix)} . ' ' . $i,
            'post_content' => '<p>' . ${phpString(prefix)} . ' number ' . $i . ' talks about coffee roast number ' . $i . '.</p>',
          ], true);
        }
        return array_map('intval', $ids);
      `);
    },
    async runCron() {
      await php(`delete_transient('doing_cron'); return true;`);
      const response = await fetch(`${url}/wp-cron.php`);
      await response.arrayBuffer();
    },
    users() {
      return php(`
        return array_map(static fn ($u) => [
          'id' => (int) $u->ID, 'login' => $u->user_login, 'email' => $u->user_email, 'roles' => array_values($u->roles),
        ], get_users(['orderby' => 'ID']));
      `);
    },
    option(name) {
      return php(`return get_option(${phpString(name)});`);
    },
    pluginNotices() {
      const debugLog = join(docroot, 'debug.log');
      if (!existsSync(debugLog)) return [];
      return readFileSync(debugLog, 'utf8')
        .split(/\n(?=\[)/)
        .filter((entry) => /chat-agent[\\/]/.test(entry) || entry.includes('ChatAgent\\'));
    },
    logs() {
      return `--- php -S ---\n${serverOutput}\n--- debug.log ---\n${debugTail()}`;
    },
    async close() {
      if (running.exitCode === null) {
        const exited = new Promise((resolve) => running.once('exit', resolve));
        signalGroup(running, 'SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
        if (running.exitCode === null) signalGroup(running, 'SIGKILL');
      }
      await dropDatabase();
      rmSync(docroot, { recursive: true, force: true });
    },
  };
}
