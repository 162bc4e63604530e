import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  cpuMinuteRows,
  jobOverlapShares,
  jobSeconds,
  jobsDuring,
  minuteSplitRows,
  readServiceLog,
  routeGrowthRows,
  routeName,
  shuffledOutsideShare,
  slowestSplitRows,
} from './soak-diagnosis.js';
import type { MinuteRecord } from './soak-report.js';

const T0 = 1_700_000_000_000;
const line = (entry: Record<string, unknown>) => JSON.stringify(entry);

describe('soak diagnosis from the processes logs', () => {
  const instanceLog = [
    line({ level: 30, time: T0 + 61_050, reqId: 'req-a', responseTime: 42.5, msg: 'request completed' }),
    line({ level: 30, time: T0 + 62_000, reqId: 'req-b', msg: 'incoming request' }),
    '{not json',
    'a pretty line',
  ].join('\n');
  const workerLog = [
    line({ level: 30, time: T0 + 61_500, job: 'index-document', ms: 1_000, msg: 'job done' }),
    line({ level: 30, time: T0 + 125_000, job: 'embed-chunks', ms: 'x', msg: 'job done' }),
  ].join('\n');

  test('reads request times by id and job spans, skipping other and broken lines', () => {
    const log = readServiceLog(instanceLog, 'instance-1');
    readServiceLog(workerLog, 'worker-1', log);
    assert.deepEqual([...log.responseMs], [['req-a', 42.5]]);
    assert.deepEqual(log.jobs, [
      { name: 'index-document', worker: 'worker-1', start: T0 + 60_500, end: T0 + 61_500 },
    ]);
    assert.equal(jobsDuring(log.jobs, T0 + 61_400, T0 + 61_600).length, 1);
    assert.equal(
      jobsDuring(log.jobs, T0 + 61_500, T0 + 62_000).length,
      0,
      'touching at the end is not overlap',
    );
    assert.equal(jobSeconds(log.jobs, T0 + 60_000, T0 + 61_000), 0.5);
  });

  test('the slowest requests split into bench, nginx and service time, with the jobs beside them', () => {
    const log = readServiceLog(`${instanceLog}\n${workerLog}`, 'any');
    const records: MinuteRecord[] = [
      { minute: 1, kind: 'widget.message', ms: 90, ok: true, at: 61, requestId: 'req-a' },
      { minute: 1, kind: 'admin.read', ms: 20, ok: true, at: 70, requestId: 'req-c' },
      { minute: 1, kind: 'upload', ms: 500, ok: false, at: 62 },
    ];
    const nginx = new Map([['req-a', 60]]);
    assert.deepEqual(slowestSplitRows(records, 2, T0, nginx, log), [
      ['2:01', 'widget.message', '90.0', '60.0', '42.5', '1 × index-document'],
      ['2:10', 'admin.read', '20.0', '?', '?', '–'],
    ]);
    assert.deepEqual(minuteSplitRows(records, T0, log), [['2', '90.0', '42.5', '1.0']]);
    assert.deepEqual(jobOverlapShares(records, 1, T0, log.jobs), { all: 0.5, slowest: 1 });
  });
});

describe('the p99 flatness rule by chance alone', () => {
  const minuteOf = (minute: number, times: number[]): MinuteRecord[] =>
    times.map((ms) => ({ minute, kind: 'admin.read' as const, ms, ok: true }));
  test('identical minutes never leave the band; a heavy tail spread thin leaves it often', () => {
    const same = Array.from({ length: 40 }, (_, i) => 10 + i);
    const flat = [0, 1, 2, 3, 4].flatMap((m) => minuteOf(m, same));
    assert.deepEqual(shuffledOutsideShare(flat, 0.2, 50), { minutes: 0, runs: 0 });
    // 100 requests a minute, two in a hundred slow: whether a minute's p99 is slow is a coin toss.
    const fast = Array.from({ length: 98 }, () => 10);
    const tail = [...fast, 100, 100];
    const noisy = [0, 1, 2, 3, 4, 5, 6, 7, 8].flatMap((m) => minuteOf(m, tail));
    const share = shuffledOutsideShare(noisy, 0.2, 50);
    assert.ok(share.minutes > 0.2 && share.minutes < 0.8, `share ${share.minutes}`);
    // With eight judged minutes that each fail as often as not, nearly every run has one outside.
    assert.ok(share.runs > 0.9, `runs ${share.runs}`);
  });
});

describe('service time per route, early and late', () => {
  test('ids in paths are folded; a route that slows down shows its growth', () => {
    assert.equal(
      routeName('GET', '/api/v1/admin/agents/01M8JYF09KP0Y624S1SDD9TPJP/sources?limit=5'),
      'GET /api/v1/admin/agents/:id/sources?limit=5',
    );
    const lines: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      for (const [minute, ms] of [
        [1, 10],
        [4, 30],
      ] as const) {
        const reqId = `r${minute}-${i}`;
        const time = T0 + minute * 60_000 + 1_000 + i;
        lines.push(line({ time, reqId, req: { method: 'GET', url: '/x' }, msg: 'incoming request' }));
        lines.push(line({ time, reqId, responseTime: ms, msg: 'request completed' }));
      }
    }
    const log = readServiceLog(lines.join('\n'), 'instance-1');
    assert.deepEqual(routeGrowthRows(log, T0, 5), [
      ['GET /x', '10', '10.0', '10.0', '10', '30.0', '30.0', '3.00×'],
    ]);
  });
});

describe('CPU per request per minute', () => {
  test('each full minute: the span between the samples at its edges, over the requests it started', () => {
    const samples = [
      { at: 0, bench: 0, set: 0, postgres: 0, machine: 0 },
      { at: 0.5, bench: 50, set: 500, postgres: 100, machine: 30_000 },
      { at: 1, bench: 100, set: 1_000, postgres: 200, machine: 60_000 },
      // Minute 2 costs twice as much everywhere, the bench included: the machine got slower.
      { at: 2, bench: 300, set: 3_000, postgres: 600, machine: 150_000 },
      // A partial third minute has no sample at its end: no row.
      { at: 2.5, bench: 350, set: 3_500, postgres: 700, machine: 170_000 },
    ];
    const records: MinuteRecord[] = [
      ...Array.from({ length: 100 }, () => ({ minute: 0, kind: 'upload' as const, ms: 1, ok: true })),
      ...Array.from({ length: 100 }, () => ({ minute: 1, kind: 'upload' as const, ms: 1, ok: false })),
    ];
    assert.deepEqual(cpuMinuteRows(samples, records, 2), [
      ['1', '100', '1.00', '10.00', '2.00', '50 %'],
      ['2', '100', '2.00', '20.00', '4.00', '75 %'],
    ]);
  });
});
