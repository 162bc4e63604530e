import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { lowerPriority } from './process-priority.js';

// A child process lowers its priority, then starts a worker thread (as the extraction pool
// does later in a worker's life); the test reads every thread's nice value from /proc.
const MODULE = fileURLToPath(new URL('./process-priority.ts', import.meta.url));
const CHILD = `
  const { lowerPriority } = await import(${JSON.stringify(MODULE)});
  const { Worker } = await import('node:worker_threads');
  lowerPriority(Number(process.argv[1]));
  const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
  await new Promise((resolve) => worker.once('online', resolve));
  process.stdout.write('ready\\n');
  setInterval(() => {}, 1000);
`;

/** Each thread's nice value: field 19 of /proc/<pid>/task/<tid>/stat (after the command's parentheses). */
function threadNices(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[16]);
  });
}

async function childAt(nice: number, prefix: string[] = []): Promise<ChildProcess> {
  const [command, ...args] = [...prefix, process.execPath];
  const child = spawn(
    command ?? process.execPath,
    [...args, '--conditions=source', '--import', 'tsx', '--input-type=module', '--eval', CHILD, String(nice)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  child.stdout?.setEncoding('utf8');
  const [line] = (await once(child.stdout ?? child, 'data')) as [string];
  assert.equal(line.trim(), 'ready');
  return child;
}

const linux = existsSync('/proc/self/task');

describe('lowerPriority', { skip: linux ? false : 'reads thread priorities from /proc (Linux)' }, () => {
  test('every thread of the process runs at the nice value, including one started afterwards', async () => {
    const child = await childAt(7);
    try {
      const nices = threadNices(child.pid ?? 0);
      assert.ok(nices.length >= 5, `${nices.length} threads`);
      assert.deepEqual(
        nices.filter((nice) => nice !== 7),
        [],
        `nice values: ${nices.join(' ')}`,
      );
    } finally {
      child.kill();
    }
  });

  test('never raises a priority: a process started nicer keeps its value', async () => {
    if (!existsSync('/usr/bin/nice')) return;
    const child = await childAt(7, ['/usr/bin/nice', '-n', '12']);
    try {
      const nices = threadNices(child.pid ?? 0);
      assert.deepEqual(
        nices.filter((nice) => nice !== 12),
        [],
        `nice values: ${nices.join(' ')}`,
      );
    } finally {
      child.kill();
    }
  });

  test('refuses a value outside 0-19', () => {
    for (const bad of [-1, 20, 2.5, Number.NaN]) assert.throws(() => lowerPriority(bad), RangeError);
  });
});
