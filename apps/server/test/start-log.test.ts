import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config/config.js';
import { wantsPrettyLog } from '../src/logger.js';
import { childEnv, MAIN_ENTRY, ROOT } from './support/processes.js';

test('LOG_FORMAT: readable lines on a terminal by default, JSON elsewhere, either when asked', () => {
  assert.equal(wantsPrettyLog('auto', true), true);
  assert.equal(wantsPrettyLog('auto', false), false);
  assert.equal(wantsPrettyLog('json', true), false);
  assert.equal(wantsPrettyLog('pretty', false), true);
  assert.equal(loadConfig({}).logFormat, 'auto');
  assert.equal(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat, 'pretty');
  assert.throws(() => loadConfig({ LOG_FORMAT: 'yaml' }), ConfigError);
});

test('LOG_FORMAT=pretty: a readable start that ends with the console, its setup code and the demo', {
  timeout: 180_000,
}, async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-start-log-'));
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', MAIN_ENTRY], {
    cwd: ROOT,
    env: childEnv({
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      BCRYPT_COST: '4',
      LOG_FORMAT: 'pretty',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no demo line within 150 s:\n${stdout}\n${stderr}`)),
        150_000,
      );
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (/Demo: open http:\/\/127\.0\.0\.1:\d+\/demo/.test(stdout)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', () => {
        clearTimeout(timer);
        reject(new Error(`the service exited:\n${stdout}\n${stderr}`));
      });
    });
    const lines = stdout.split('\n').filter((line) => line.trim() !== '');
    for (const line of lines) assert.ok(!line.trimStart().startsWith('{"level"'), `not a JSON line: ${line}`);
    const ready = lines.findIndex((line) =>
      /Ready\. Open http:\/\/127\.0\.0\.1:\d+\/admin\/ and enter the setup code [A-Z2-9]{4}-/.test(line),
    );
    const demo = lines.findIndex((line) => line.includes('Demo: open'));
    assert.ok(ready >= 0, stdout);
    assert.ok(/INFO/.test(lines[ready] ?? ''), 'level shown as a word');
    assert.ok(demo > ready, 'the demo comes last');
    assert.ok(!stdout.includes(String.fromCharCode(27)), 'no colours when stdout is not a terminal');
  } finally {
    child.kill('SIGTERM');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  }
});
