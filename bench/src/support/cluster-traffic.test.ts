import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { commandCpuMs, pidsNamed } from './cluster-traffic.js';

test("a command's CPU time keeps what its ended processes used (the server reaps its backends)", async () => {
  // A shell under a name of its own, which starts a copy of itself that only burns CPU: the
  // parent and the child carry that name, as PostgreSQL's server and its backends do.
  const dir = mkdtempSync(join(tmpdir(), 'cpu-probe-'));
  const name = `cpuprobe${process.pid % 100_000}`;
  const shell = join(dir, name);
  copyFileSync('/bin/sh', shell);
  // The parent then waits on its input (a shell builtin: no process of its own).
  const parent = spawn(shell, ['-c', `${shell} -c 'while :; do :; done'; read line`], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  try {
    let child: number | undefined;
    let whileRunning = 0;
    for (let i = 0; i < 200 && whileRunning < 200; i += 1) {
      await sleep(25);
      child = pidsNamed(name).find((pid) => pid !== parent.pid);
      whileRunning = commandCpuMs(name);
    }
    assert.ok(child !== undefined && whileRunning >= 200, `the child burned ${whileRunning} ms`);
    process.kill(child, 'SIGKILL');
    // The parent waits for its child, then reads: the child's time is now the parent's.
    for (let i = 0; i < 200 && pidsNamed(name).length > 1; i += 1) await sleep(25);
    assert.deepEqual(pidsNamed(name), [parent.pid]);
    const afterEnd = commandCpuMs(name);
    assert.ok(afterEnd >= whileRunning, `${afterEnd} ms after the child ended, ${whileRunning} ms before`);
  } finally {
    parent.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
