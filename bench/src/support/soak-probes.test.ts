import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { heapTable, readHeapProbes, rssAfterCollection } from './soak-probes.js';

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
        line(started + 60_000, 50, { external: 4 * MB, arrayBuffers: 1 * MB, rss: 120 * MB }),
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
    assert.deepEqual(named('instance-1 new_space held'), [16]);
    assert.deepEqual(named('instance-1 old_space held'), [45]);
    assert.deepEqual(named('instance-1 code_space held'), []);
    assert.deepEqual(named('worker-1 arrayBuffers'), []);
    assert.deepEqual(named('worker-1 rss after gc'), [90]);

    // The memory verdict's reading: each process's RSS after the collection, under its own name.
    assert.deepEqual(
      rssAfterCollection([...heap, ...spaces]).map((s) => [s.name, s.at, s.mb]),
      [
        ['instance-1', 1, 120],
        ['instance-1', 2, 124],
        ['worker-1', 1, 90],
      ],
    );

    const table = heapTable([...heap, ...spaces], 2);
    assert.match(table, /\| instance-1 rss after gc +\| +120\.0 \| +124\.0 \| +4\.000 \|/);
    assert.match(table, /\| instance-1 external +\| +4\.0 \| +6\.0 \| +2\.000 \|/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
