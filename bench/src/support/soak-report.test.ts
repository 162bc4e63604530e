import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  buildMix,
  clock,
  KINDS,
  MIX,
  type MinuteRecord,
  memorySlope,
  slope,
  slowestRows,
  verdict,
} from './soak-report.js';

describe('soak schedule and report', () => {
  test('the schedule sends exactly the rate, each kind at its share, spread over the ticks', () => {
    const mix = buildMix(6);
    const minute = Array.from({ length: 600 }, (_, tick) => mix(tick)).flat();
    assert.equal(minute.length, 360);
    for (const kind of KINDS) {
      assert.equal(minute.filter((k) => k === kind).length, Math.round(360 * MIX[kind]), kind);
    }
    // No burst: a tick never carries more than one request of a kind at this rate.
    for (let tick = 0; tick < 600; tick += 1) {
      const kinds = mix(tick);
      assert.equal(new Set(kinds).size, kinds.length);
    }
  });

  test('slope is the least-squares line; memory trends judge after the first minute', () => {
    assert.equal(slope([{ x: 0, y: 1 }]), 0);
    assert.equal(slope([0, 1, 2, 3].map((x) => ({ x, y: 2 * x + 5 }))), 2);
    const samples = [0.2, 0.5, 1, 2, 3, 4].map((at) => ({ name: 'api-1', at, mb: at < 1 ? 50 : 200 }));
    const [trend] = memorySlope(samples);
    assert.equal(trend?.slope, 0, 'the warm-up climb is not a trend');
    assert.equal(trend?.max, 200);
  });

  test('the verdict fails on an error, a growing process, and a minute whose p99 leaves the band', () => {
    const steady = (minute: number, ms: number): MinuteRecord[] =>
      Array.from({ length: 30 }, () => ({ minute, kind: 'admin.read' as const, ms, ok: true }));
    const flat = [...steady(0, 500), ...steady(1, 100), ...steady(2, 105), ...steady(3, 95)];
    const still = [{ name: 'api-1', readings: 14, first: 200, last: 201, max: 201, slope: 0.01 }];
    assert.equal(verdict(flat, still).ok, true);
    assert.equal(verdict([...flat, { minute: 2, kind: 'upload', ms: 10, ok: false }], still).ok, false);
    assert.equal(
      verdict(flat, [{ name: 'api-1', readings: 14, first: 200, last: 260, max: 260, slope: 1 }]).ok,
      false,
    );
    const spike = [...flat, ...steady(4, 300)];
    const judged = verdict(spike, still);
    assert.equal(judged.ok, false);
    assert.match(judged.lines.join('\n'), /1 of 4 outside/);
    assert.match(verdict(flat, still).lines.join('\n'), /PASS p99 trend: -5\.0 %/);
  });

  test('a p99 that climbs fails the trend line while every minute stays inside the band', () => {
    const steady = (minute: number, ms: number): MinuteRecord[] =>
      Array.from({ length: 30 }, () => ({ minute, kind: 'admin.read' as const, ms, ok: true }));
    const still = [{ name: 'api-1', readings: 14, first: 200, last: 201, max: 201, slope: 0.01 }];
    // Minutes 2 to 11 climb from 50 to 65 ms: each within ±20 % of the median (57.5 ms), +26 % in all.
    const climbing = [
      ...steady(0, 500),
      ...Array.from({ length: 10 }, (_, i) => steady(i + 1, 50 + (15 * i) / 9)).flat(),
    ];
    const judged = verdict(climbing, still);
    const text = judged.lines.join('\n');
    assert.match(text, /PASS p99 per minute within ±20 % of the median minute \(\S+ ms\): 0 of 10 outside/);
    assert.match(text, /FAIL p99 trend: \+2[5-7]\.\d %/);
    assert.equal(judged.ok, false);
  });

  test('the slowest requests come slowest first, with the moment each started and the instance behind each', () => {
    const records: MinuteRecord[] = [
      { minute: 0, kind: 'upload', ms: 40, ok: true, at: 5 },
      { minute: 2, kind: 'site.sync', ms: 300, ok: true, at: 125.6, requestId: 'req-a' },
      { minute: 1, kind: 'widget.message', ms: 900, ok: false, at: 70 },
      { minute: 1, kind: 'admin.read', ms: 80, ok: true, at: 61 },
    ];
    assert.equal(clock(0), '1:00');
    assert.equal(clock(125.6), '3:05');
    const upstreamOf = new Map([['req-a', '127.0.0.1:4102']]);
    assert.deepEqual(slowestRows(records, 2, upstreamOf), [
      ['3:05', 'site.sync', '300', '127.0.0.1:4102', 'req-a'],
      // No request id (the request got no answer header) or not in the log: shown as unknown.
      ['2:01', 'admin.read', '80.0', '?', '?'],
    ]);
  });
});
