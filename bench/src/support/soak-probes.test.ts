import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  heapTable,
  readHeapProbes,
  rssAfterCollection,
  slowLogEntries,
  slowLogTable,
} from './soak-probes.js';

const MB = 2 ** 20;

test('heap probes: readings before the start are left out, off-heap memory and threads become rows of their own', () => {
  const dir = mkdtempSync(join(tmpdir(), 'soak-probes-'));
  try {
    const started = 1_000_000;
    const line = (t: number, mb: number, extra: Record<string, unknown>) =>
      JSON.stringify({ t, heapUsed: mb * MB, spaces: { old_space: mb * MB }, ...extra });
    writeFileSync(
      join(dir, '41.jsonl'),
      [
        line(started - 10_000, 99, { external: 99 * MB, arrayBuffers: 99 * MB, rss: 999 * MB }),
        line(started + 60_000, 50, {
          external: 4 * MB,
          arrayBuffers: 1 * MB,
          rss: 120 * MB,
          physical: { new_space: 32 * MB, old_space: 44 * MB },
        }),
        line(started + 120_000, 51, {
          external: 6 * MB,
          arrayBuffers: 3 * MB,
          rss: 124 * MB,
          heapPhysical: 70 * MB,
          physical: { new_space: 16 * MB, old_space: 45 * MB, code_space: 2 * MB },
        }),
        // An extraction thread's heap: a row of its own, and not the process's RSS.
        line(started + 60_000, 8, { thread: 3, external: 1 * MB, heapPhysical: 12 * MB }),
        '',
      ].join('\n'),
    );
    // A file written before the probe recorded arrayBuffers: the rows it lacks are not invented.
    writeFileSync(
      join(dir, '42.jsonl'),
      `${line(started + 60_000, 30, { external: 2 * MB, rss: 90 * MB })}\n`,
    );
    const { heap, spaces } = readHeapProbes(
      dir,
      [
        { name: 'instance-1', pid: 41 },
        { name: 'worker-1', pid: 42 },
        { name: 'worker-2', pid: 43 },
      ],
      started,
    );
    assert.deepEqual(
      heap.map((s) => [s.name, s.at, s.mb]),
      [
        ['instance-1', 1, 50],
        ['instance-1', 2, 51],
        ['instance-1 thread 3', 1, 8],
        ['worker-1', 1, 30],
      ],
    );
    const named = (name: string) => spaces.filter((s) => s.name === name).map((s) => s.mb);
    assert.deepEqual(named('instance-1 external'), [4, 6]);
    assert.deepEqual(named('instance-1 arrayBuffers'), [1, 3]);
    assert.deepEqual(named('instance-1 rss after gc'), [120, 124]);
    assert.deepEqual(named('instance-1 thread 3 rss after gc'), []);
    assert.deepEqual(named('instance-1 thread 3 heap held'), [12]);
    // Held memory where the probe wrote it: the whole heap, then the new and old space only.
    assert.deepEqual(named('instance-1 heap held'), [70]);
    assert.deepEqual(named('instance-1 new_space held'), [32, 16]);
    assert.deepEqual(named('instance-1 old_space held'), [44, 45]);
    // RSS less the new space's pages, where the line has both: the new space shrank by 16 MB
    // while RSS rose by 4, so what the process holds beside it rose by 20.
    assert.deepEqual(named('instance-1 rss less new space'), [88, 108]);
    assert.deepEqual(named('worker-1 rss less new space'), []);
    assert.deepEqual(named('instance-1 code_space held'), []);
    assert.deepEqual(named('worker-1 arrayBuffers'), []);
    assert.deepEqual(named('worker-1 rss after gc'), [90]);

    // The memory verdict's reading: each process's RSS after the collection, under its own name.
    assert.deepEqual(
      rssAfterCollection([...heap, ...spaces]).map((s) => [s.name, s.at, s.mb]),
      [
        ['instance-1', 1, 88],
        ['instance-1', 2, 108],
        // Its lines lack the new space: its RSS after the collection as it is.
        ['worker-1', 1, 90],
      ],
    );

    const table = heapTable([...heap, ...spaces], 2, 'after each major collection');
    assert.match(table, /MB, after each major collection;/);
    assert.match(table, /\| instance-1 rss after gc +\| +2 \| +120\.0 \| +124\.0 \| +4\.000 \|/);
    assert.match(table, /\| instance-1 external +\| +2 \| +4\.0 \| +6\.0 \| +2\.000 \|/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the server's log: slow statements, lock waits with the waiting statement, checkpoints; nothing before the start", () => {
  const started = Date.parse('2026-11-29T16:00:00Z');
  const log = [
    '2026-11-29 15:59:59.900 UTC [100] LOG:  duration: 900.000 ms  statement: select before_the_start',
    '2026-11-29 16:08:30.250 UTC [201] LOG:  process 201 still waiting for ShareLock on transaction 7 after 200.1 ms',
    '2026-11-29 16:08:30.250 UTC [201] DETAIL:  Process holding the lock: 202. Wait queue: 201.',
    '2026-11-29 16:08:30.250 UTC [201] STATEMENT:  update conversations set status = $1 | where id = $2',
    '\tand a continuation line',
    '2026-11-29 16:08:30.900 UTC [201] LOG:  process 201 acquired ShareLock on transaction 7 after 850.3 ms',
    '2026-11-29 16:08:30.901 UTC [201] LOG:  duration: 872.500 ms  execute <unnamed>: insert into messages values ($1)',
    "2026-11-29 16:08:30.901 UTC [201] DETAIL:  parameters: $1 = 'a visitor wrote this'",
    '2026-11-29 16:09:00.000 UTC [150] LOG:  automatic vacuum of table "db.public.chunks": index scans: 1',
    '2026-11-29 16:10:00.000 UTC [90] LOG:  checkpoint complete: wrote 120 buffers (0.7%); write=12.0 s, sync=0.9 s, total=12.9 s',
    '2026-11-29 16:11:00.000 UTC [91] LOG:  connection received: host=127.0.0.1',
  ].join('\n');
  const entries = slowLogEntries(log, started, 80);
  assert.deepEqual(
    entries.map((e) => [e.at, e.pid, e.what.slice(0, 40)]),
    [
      [510.25, 201, 'process 201 still waiting for ShareLock '],
      [510.25, 201, 'detail: Process holding the lock: 202. W'],
      [510.25, 201, 'statement: update conversations set stat'],
      [510.9, 201, 'process 201 acquired ShareLock on transa'],
      [510.901, 201, 'duration: 872.500 ms  execute <unnamed>:'],
      [600, 90, 'checkpoint complete: wrote 120 buffers ('],
    ],
    "the parameters of a slow statement (visitors' words) are never shown",
  );
  assert.ok(
    entries.every((e) => e.what.length <= 80),
    'cut to the width',
  );
  const table = slowLogTable(entries, 2);
  assert.match(table, /\| 9:30 \| +201 \| +process 201 still waiting/);
  assert.match(table, /\(and 4 more\)$/);
  assert.equal(slowLogTable([], 5), 'none');
});
