// `cli bootstrap` takes the password from standard input (`--password-stdin`) or a hidden
// prompt, so it never has to be on the command line (which npm prints). Real CLI processes
// on a fresh embedded store; the stored bcrypt hash is checked afterwards.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { promptHidden, readPasswordFromStream } from '../src/cli/read-password.js';
import { openEmbeddedDatabase } from '../src/db/database.js';
import { verifyPassword } from '../src/security/passwords.js';
import { oneJsonLine, runCli } from './support/processes.js';

/** The stored hash of a user's password, read from the (stopped) store. */
async function passwordHashOf(dataDir: string, email: string): Promise<string | undefined> {
  const database = await openEmbeddedDatabase({ dataDir, log: { info() {}, warn() {} } });
  try {
    const row = await database.db
      .selectFrom('users')
      .select('password_hash')
      .where('email', '=', email)
      .executeTakeFirst();
    return row?.password_hash;
  } finally {
    await database.close();
  }
}

async function userEmails(dataDir: string): Promise<string[]> {
  const database = await openEmbeddedDatabase({ dataDir, log: { info() {}, warn() {} } });
  try {
    const rows = await database.db.selectFrom('users').select('email').orderBy('email').execute();
    return rows.map((row) => row.email);
  } finally {
    await database.close();
  }
}

describe('cli bootstrap --password-stdin (real processes, embedded store)', () => {
  let dataDir: string;
  let env: Record<string, string>;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-cli-pw-'));
    env = { DATA_DIR: dataDir, BCRYPT_COST: '4', DEMO_SEED: 'false' };
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const bootstrap = (email: string, extra: string[], input?: string) =>
    runCli(
      ['bootstrap', '--email', email, '--workspace', `W ${email}`, '--json', ...extra],
      env,
      90_000,
      input,
    );

  test('reads the password from stdin, drops one trailing newline, never prints it', async () => {
    const password = 'piped secret 9f3a';
    const result = await bootstrap('stdin@example.com', ['--password-stdin'], `${password}\n`);
    const answer = oneJsonLine(result);
    assert.ok(typeof answer === 'object' && answer !== null && 'user' in answer);
    assert.deepEqual(Object.keys(answer).sort(), ['admin_token', 'user', 'workspace']);
    assert.ok(!result.stdout.includes(password) && !result.stderr.includes(password));
    const stored = await passwordHashOf(dataDir, 'stdin@example.com');
    assert.ok(stored);
    assert.equal(await verifyPassword(password, stored), true);
    assert.equal(await verifyPassword(`${password}\n`, stored), false, 'the newline is not part of it');
  });

  test('only one newline is dropped (CRLF counts as one); spaces are kept', async () => {
    const result = await bootstrap('crlf@example.com', ['--password-stdin'], ' spaced pw \r\n\r\n');
    assert.equal(result.code, 0, result.stderr);
    const stored = await passwordHashOf(dataDir, 'crlf@example.com');
    assert.ok(stored);
    assert.equal(await verifyPassword(' spaced pw \r\n', stored), true);
    assert.equal(await verifyPassword(' spaced pw ', stored), false);
  });

  test('empty stdin, both flags, or no password without a terminal: exit 1 with the fix, nothing created', async () => {
    const empty = await bootstrap('empty@example.com', ['--password-stdin'], '');
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /--password: The password must be at least 8 characters\./);

    const both = await bootstrap(
      'both@example.com',
      ['--password', 'long enough pw', '--password-stdin'],
      'x\n',
    );
    assert.equal(both.code, 1);
    assert.match(both.stderr, /--password or --password-stdin, not both/);

    const none = await bootstrap('none@example.com', [], 'not read without the flag\n');
    assert.equal(none.code, 1);
    assert.match(none.stderr, /--password-stdin/);

    const other = await runCli(['migrate', '--password-stdin'], env, 90_000, 'x\n');
    assert.equal(other.code, 1);
    assert.match(other.stderr, /--password-stdin is an option of bootstrap only/);

    assert.deepEqual(await userEmails(dataDir), ['crlf@example.com', 'stdin@example.com']);
  });
});

describe('the hidden prompt', () => {
  /** A fake terminal: what the prompt writes, and whether raw mode was on while it read. */
  function terminal() {
    const input = Object.assign(new PassThrough(), {
      isTTY: true,
      rawModes: [] as boolean[],
      setRawMode(mode: boolean) {
        input.rawModes.push(mode);
        return input;
      },
    });
    const output = new PassThrough();
    let written = '';
    output.on('data', (chunk: Buffer) => {
      written += chunk.toString('utf8');
    });
    return { input, output, written: () => written };
  }

  test('echoes nothing but the question; Backspace deletes; Enter ends; raw mode is restored', async () => {
    const tty = terminal();
    const answer = promptHidden('Password: ', tty.input, tty.output);
    tty.input.write('hunter2x');
    tty.input.write('\u007fy\r');
    assert.equal(await answer, 'hunter2y');
    assert.equal(tty.written(), 'Password: \n');
    assert.deepEqual(tty.input.rawModes, [true, false]);
  });

  test('a line typed ahead is kept for the next prompt (CRLF is one Enter)', async () => {
    const tty = terminal();
    tty.input.write('first pw\r\nsecond pw\r');
    assert.equal(await promptHidden('Password: ', tty.input, tty.output), 'first pw');
    assert.equal(await promptHidden('Repeat: ', tty.input, tty.output), 'second pw');
    assert.equal(tty.written(), 'Password: \nRepeat: \n');
  });

  test('Ctrl-C cancels with an error and restores the terminal', async () => {
    const tty = terminal();
    const answer = promptHidden('Password: ', tty.input, tty.output);
    tty.input.write('abc\u0003');
    await assert.rejects(answer, /Cancelled/);
    assert.deepEqual(tty.input.rawModes, [true, false]);
    assert.ok(!tty.written().includes('abc'));
  });

  test('readPasswordFromStream keeps inner newlines and drops only the last one', async () => {
    const stream = new PassThrough();
    stream.end('line one\nline two\n\n');
    assert.equal(await readPasswordFromStream(stream), 'line one\nline two\n');
  });
});
