// The plugin's own PHP checks, so `npm test` covers them: `php -l` on every PHP file of the
// package, `phpcs` with the package's phpcs.xml.dist and PHPUnit with its phpunit.xml.dist
// (Debian's php-cli, php-codesniffer and phpunit). Each must exit 0.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { PACKAGE_DIR } from './support/wordpress.js';

const ROOT = join(PACKAGE_DIR, '..', '..');
const has = (name: string) => spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;

function phpFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry === 'vendor' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) phpFiles(path, out);
    else if (entry.endsWith('.php')) out.push(path);
  }
  return out;
}

const run = (command: string, args: string[], cwd = ROOT) =>
  spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });

describe('the plugin passes its PHP checks', () => {
  test('php -l: every PHP file of the package parses', {
    skip: !has('php') && 'php is not installed',
  }, () => {
    const files = phpFiles(PACKAGE_DIR);
    assert.ok(
      files.some((file) => file.endsWith(join('chat-agent', 'chat-agent.php'))),
      'the plugin main file exists',
    );
    const broken = files
      .map((file) => ({ file, result: run('php', ['-l', file]) }))
      .filter(({ result }) => result.status !== 0)
      .map(({ file, result }) => `${relative(ROOT, file)}: ${result.stdout}${result.stderr}`);
    assert.deepEqual(broken, []);
  });

  test('phpcs with phpcs.xml.dist', {
    skip: !has('phpcs') && 'phpcs is not installed (php-codesniffer)',
  }, () => {
    const standard = join(PACKAGE_DIR, 'phpcs.xml.dist');
    assert.ok(existsSync(standard), 'the package has a phpcs.xml.dist');
    // In the package folder phpcs reads phpcs.xml.dist itself: its rules and the files it names.
    const result = run('phpcs', ['-q', '--report=full'], PACKAGE_DIR);
    assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
  });

  test('PHPUnit with phpunit.xml.dist', { skip: !has('phpunit') && 'phpunit is not installed' }, () => {
    const config = join(PACKAGE_DIR, 'phpunit.xml.dist');
    assert.ok(existsSync(config), 'the package has a phpunit.xml.dist');
    const result = run('phpunit', ['-c', relative(ROOT, config)]);
    assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /OK \(\d+ tests?/, 'PHPUnit ran tests and all passed');
  });
});
