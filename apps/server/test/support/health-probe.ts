import { Worker } from 'node:worker_threads';

/**
 * The bound on the slowest /healthz answer while hostile input is read. The failure it guards
 * against, parsing on the service's own event loop, held /healthz for 10 to 21 s; a loaded CI
 * machine (two cores, browsers and other suites beside) has been seen to delay a healthy answer
 * by 1.5 s. 5 s tells the two apart without timing the machine.
 */
export const HEALTH_BOUND_MS = 5000;

/** What a health probe saw: requests answered, the slowest answer, and requests that failed. */
export type HealthReport = { samples: number; maxMs: number; failures: number };

/** A running probe of a health URL: `ready` once it has one answer, `stop` ends it and reports. */
export type HealthProbe = { ready: Promise<void>; stop(): Promise<HealthReport> };

// Plain CommonJS run in its own thread: its event loop is not the server's, so a server that
// blocks its loop shows up as a slow answer here (a poller on the server's loop would be blocked
// with it and see nothing). A request still unanswered when the probe stops counts as its wait.
const PROBE_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { setTimeout: sleep } = require('node:timers/promises');
let stopping = false;
let samples = 0;
let maxMs = 0;
let failures = 0;
let since = null;
const get = () => new Promise((resolve) => {
  const request = http.get(workerData.url, { agent: false }, (response) => {
    response.resume();
    response.on('end', () => resolve(response.statusCode === 200));
  });
  request.on('error', () => resolve(false));
});
parentPort.on('message', () => {
  stopping = true;
  if (since !== null) maxMs = Math.max(maxMs, performance.now() - since);
  parentPort.postMessage({ type: 'report', report: { samples, maxMs, failures } });
  parentPort.close();
});
(async () => {
  while (!stopping) {
    since = performance.now();
    const ok = await get();
    if (stopping) break;
    maxMs = Math.max(maxMs, performance.now() - since);
    since = null;
    samples += 1;
    if (!ok) failures += 1;
    if (samples === 1) parentPort.postMessage({ type: 'ready' });
    await sleep(workerData.intervalMs);
  }
})();
`;

/**
 * Polls `url` every `intervalMs` from a separate thread, measuring each answer's latency over
 * real HTTP, until `stop` is called. Await `ready` before the work under test, so the probe is
 * polling (and has a baseline answer) before it starts.
 */
export function probeHealth(url: string, intervalMs = 100): HealthProbe {
  const worker = new Worker(PROBE_SOURCE, { eval: true, workerData: { url, intervalMs } });
  const reports: Array<(report: HealthReport) => void> = [];
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (message: { type: 'ready' } | { type: 'report'; report: HealthReport }) => {
      if (message.type === 'ready') resolve();
      else for (const deliver of reports.splice(0)) deliver(message.report);
    });
    worker.once('error', reject);
  });
  return {
    ready,
    stop: () =>
      new Promise<HealthReport>((resolve) => {
        reports.push((report) => {
          void worker.terminate();
          resolve(report);
        });
        worker.postMessage('stop');
      }),
  };
}
