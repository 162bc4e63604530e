import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { clusterUnavailable, readAccessLog, startCluster } from '../../scripts/cluster/start-cluster.mjs';
import { openBenchPostgres, type PostgresChoice } from './support/bench-postgres.js';
import {
  clusterEnv,
  commandCpuMs,
  cpuMs,
  machineBusyMs,
  rssMb,
  run,
  SITE_POSTS,
  seedPosts,
  setUp,
} from './support/cluster-traffic.js';
import { startFakeOpenAi } from './support/fake-openai.js';
import { formatMs, markdownTable, summarize } from './support/latency.js';
import {
  type CpuSample,
  cpuMinuteRows,
  emptyServiceLog,
  jobOverlapShares,
  minuteSplitRows,
  readServiceLog,
  routeGrowthRows,
  type ServiceLog,
  shuffledOutsideShare,
  slowestSplitRows,
} from './support/soak-diagnosis.js';
import { readSoakOptions } from './support/soak-options.js';
import {
  type DbEvent,
  type DbSeen,
  databaseEvents,
  databaseEventTable,
  heapTable,
  readHeapProbes,
  rssAfterCollection,
  SLOW_LOG_SETTINGS,
  type SlowLogEntry,
  slowLogEntries,
  slowLogTable,
} from './support/soak-probes.js';
import {
  buildMix,
  KINDS,
  type MinuteRecord,
  memorySlope,
  minuteRows,
  P99_BAND,
  type Sample,
  slowestRows,
  verdict,
} from './support/soak-report.js';

const {
  minutes,
  rate,
  instanceCount,
  workerCount,
  workerNice,
  postgres,
  seed,
  heap,
  heapEverySeconds,
  keepReadings,
  warmupMinutes,
  mallocArenas,
  code,
} = readSoakOptions();
/** Requests in flight at most; beyond it a tick's requests count as errors (the set fell behind). */
const MAX_IN_FLIGHT = 64;
const SAMPLE_EVERY_MS = 10_000;

function count(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

async function main(postgres: PostgresChoice): Promise<void> {
  const server = await openBenchPostgres(postgres, 'soak', SLOW_LOG_SETTINGS);
  const adminDatabaseUrl = server.adminUrl;
  const unavailable = await clusterUnavailable({
    installNginx: true,
    ...(adminDatabaseUrl ? { adminDatabaseUrl } : {}),
  });
  if (unavailable) {
    await server.close();
    console.error(`soak: cannot start the set: ${unavailable}`);
    process.exit(1);
  }
  const heapDir = heap === 'no' ? null : mkdtempSync(join(tmpdir(), 'soak-heap-'));
  // When the probe reads, in the run's heading, the heap table's and the memory verdict's words.
  const reading =
    heap === 'major'
      ? {
          heading: "heap read after V8's own major collections",
          cadence: `after each major collection V8 ran on its own, at most one reading every ${heapEverySeconds} s`,
          judged: "RSS after V8's own major collections, less the new space",
        }
      : {
          heading: `heap probed every ${heapEverySeconds} s`,
          cadence: `after a full collection forced every ${heapEverySeconds} s`,
          judged: 'RSS after a full collection, less the new space',
        };
  const heapEnv: Record<string, string> = heapDir
    ? {
        NODE_OPTIONS: `${heap === 'yes' ? '--expose-gc ' : ''}--require ${fileURLToPath(new URL('./support/heap-probe.cjs', import.meta.url))}`,
        HEAP_PROBE_MODE: heap === 'major' ? 'major' : 'forced',
        HEAP_PROBE_DIR: heapDir,
        HEAP_PROBE_EVERY_MS: String(heapEverySeconds * 1000),
      }
    : {};
  const fake = await startFakeOpenAi(['Thanks for asking. ', 'Shipping takes two days. ', 'Anything else?']);
  // A set that cannot start (a stale build, nginx missing) leaves nothing running behind it.
  const cluster = await startCluster({
    code,
    instances: instanceCount,
    workers: workerCount,
    ...(adminDatabaseUrl ? { adminDatabaseUrl } : {}),
    // Requests and jobs logged at info, the service's default: the diagnosis below reads them.
    env: {
      ...clusterEnv(fake.baseUrl),
      LOG_LEVEL: 'info',
      ...heapEnv,
      ...(workerNice === undefined ? {} : { WORKER_NICE: workerNice }),
      ...(mallocArenas === undefined ? {} : { MALLOC_ARENA_MAX: mallocArenas }),
    },
  }).catch(async (error: unknown) => {
    await fake.close();
    await server.close();
    if (heapDir) rmSync(heapDir, { recursive: true, force: true });
    console.error(`soak: cannot start the set: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
  const db = new pg.Client({ connectionString: cluster.databaseUrl });
  await db.connect();
  const autovacuum = (await db.query<{ v: string }>("select current_setting('autovacuum') as v")).rows[0]?.v;
  const processes = [...cluster.instances, ...cluster.workers];
  const records: MinuteRecord[] = [];
  const warmup: MinuteRecord[] = [];
  const memory: Sample[] = [];
  const dbSamples: { at: number; connections: number; queue: number }[] = [];
  const cpuSamples: CpuSample[] = [];
  const heapSamples: Sample[] = [];
  const slowLog: SlowLogEntry[] = [];
  const failures = new Map<string, number>();
  const upstreamOf = new Map<string, string>();
  const nginxMs = new Map<string, number>();
  const serviceLog: ServiceLog = emptyServiceLog();
  let started = Date.now();
  // What might explain a slow moment: the database's background work, and this process's own
  // event loop (it sends the requests and answers as the fake model: a pause here is measured as
  // the service's time).
  const dbEvents: DbEvent[] = [];
  const seenDb: DbSeen = { runs: new Map() };
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const loopMax = new Map<number, number>();
  loop.enable();
  try {
    const ctx = await setUp(cluster);
    if (seed === 'yes') {
      const seeding = Date.now();
      await seedPosts(ctx);
      process.stderr.write(
        `  seeded ${SITE_POSTS} posts, indexed in ${((Date.now() - seeding) / 1000).toFixed(1)} s\n`,
      );
    }
    const mix = buildMix(rate);
    const begin = Date.now();
    // The measured minutes start after the warm-up: its requests have negative times.
    started = begin + warmupMinutes * 60_000;
    const endAt = started + minutes * 60_000;
    let inFlight = 0;
    const pending = new Set<Promise<void>>();
    const sample = async () => {
      const at = (Date.now() - started) / 60_000;
      for (const proc of processes) {
        const mb = rssMb(proc.pid);
        if (mb !== null) memory.push({ name: proc.name, at, mb });
      }
      const conns = await db.query<{ n: string }>(
        'select count(*)::text as n from pg_stat_activity where datname = current_database()',
      );
      const queue = await db.query<{ n: string }>(
        "select count(*)::text as n from pgboss.job where state in ('created', 'retry', 'active')",
      );
      dbSamples.push({ at, connections: Number(conns.rows[0]?.n), queue: Number(queue.rows[0]?.n) });
      const own = process.cpuUsage();
      cpuSamples.push({
        at,
        bench: (own.user + own.system) / 1000,
        set: processes.reduce((sum, proc) => sum + cpuMs(proc.pid), 0),
        postgres: commandCpuMs('postgres'),
        machine: machineBusyMs(),
      });
      dbEvents.push(...(await databaseEvents(db, started, seenDb)));
      const minute = Math.floor(at);
      loopMax.set(minute, Math.max(loopMax.get(minute) ?? 0, loop.max / 1e6));
      loop.reset();
    };
    await sample();
    let nextSample = Date.now() + SAMPLE_EVERY_MS;
    // Open loop: each 100 ms tick starts its share of the schedule, whatever is still running.
    for (let tick = 0; Date.now() < endAt; tick += 1) {
      for (const kind of mix(tick)) {
        const at = (Date.now() - started) / 1000;
        const minute = Math.floor(at / 60);
        const into = at < 0 ? warmup : records;
        if (inFlight >= MAX_IN_FLIGHT) {
          into.push({ minute, kind, ms: 0, ok: false, at });
          count(failures, `${kind}: not sent, ${MAX_IN_FLIGHT} already in flight`);
          continue;
        }
        inFlight += 1;
        const t0 = performance.now();
        const job = run(kind, ctx)
          .then(({ status, requestId }) => {
            if (status >= 300) count(failures, `${kind}: answered ${status}`);
            return { ok: status < 300, requestId };
          })
          .catch((error: unknown) => {
            count(failures, `${kind}: ${error instanceof Error ? error.message : String(error)}`);
            return { ok: false, requestId: '' };
          })
          .then(({ ok, requestId }) => {
            into.push({ minute, kind, ms: performance.now() - t0, ok, at, requestId });
          })
          .finally(() => {
            inFlight -= 1;
            pending.delete(job);
          });
        pending.add(job);
      }
      if (Date.now() >= nextSample) {
        nextSample += SAMPLE_EVERY_MS;
        await sample();
        const minute = Math.floor((Date.now() - started) / 60_000);
        const done = (minute < 0 ? warmup : records).filter((r) => r.minute === minute);
        process.stderr.write(
          `  ${((Date.now() - started) / 60_000).toFixed(1)} min: ${done.length} this minute, ${done.filter((r) => !r.ok).length} errors, ${inFlight} in flight, queue ${dbSamples.at(-1)?.queue}\n`,
        );
      }
      const wait = begin + (tick + 1) * 100 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    await Promise.allSettled([...pending]);
    await sample();
  } finally {
    loop.disable();
    // Which instance served each request, read before the cluster's directory goes.
    for (const entry of readAccessLog(cluster.accessLog)) {
      if (!entry.requestId || entry.requestId === '-') continue;
      upstreamOf.set(entry.requestId, entry.upstream);
      if (Number.isFinite(entry.requestMs)) nginxMs.set(entry.requestId, entry.requestMs);
    }
    // The service's own time for each request and the workers' jobs, from their JSON logs.
    for (const proc of processes) readServiceLog(proc.log(), proc.name, serviceLog);
    if (heapDir) {
      const probes = readHeapProbes(heapDir, processes, started);
      heapSamples.push(...probes.heap, ...probes.spaces);
      if (keepReadings === 'yes') console.log(`\nThe heap probe's readings are kept in ${heapDir}`);
      else rmSync(heapDir, { recursive: true, force: true });
    }
    await db.end().catch(() => undefined);
    await cluster.stop();
    await fake.close();
    // The private server's slow statements, lock waits and checkpoints, read before it goes.
    if (server.logFile) slowLog.push(...slowLogEntries(readFileSync(server.logFile, 'utf8'), started));
    await server.close();
  }

  const all = summarize(records.filter((r) => r.ok).map((r) => r.ms));
  const warm = summarize(warmup.filter((r) => r.ok).map((r) => r.ms));
  console.log(
    `\n## Soak: ${minutes} min at ${rate} requests/s through nginx, ${instanceCount} instances + ${workerCount} workers${workerNice === undefined ? '' : ` at nice ${workerNice}`}${mallocArenas === undefined ? '' : `, MALLOC_ARENA_MAX=${mallocArenas}`}${heapDir ? `, ${reading.heading}` : ''}, running the ${code === 'built' ? 'build' : 'sources through tsx'} (PostgreSQL ${server.describe}, autovacuum ${autovacuum}; Redis; ${seed === 'yes' ? `the site's ${SITE_POSTS} posts synced before the start` : "the site's posts created during the run"})\n`,
  );
  if (warmupMinutes > 0) {
    console.log(
      `Warm-up before the clock: ${warmupMinutes} min, ${warmup.length} requests, ${warmup.filter((r) => !r.ok).length} errors; p50 ${formatMs(warm.p50)} ms, p99 ${formatMs(warm.p99)} ms\n`,
    );
  }
  console.log(
    `${records.length} requests, ${records.filter((r) => !r.ok).length} errors; p50 ${formatMs(all.p50)} ms, p99 ${formatMs(all.p99)} ms over the run\n`,
  );
  console.log(
    markdownTable(
      ['minute', 'requests', 'errors', 'p50 ms', 'p99 ms', ...KINDS.map((k) => `${k} p99`)],
      minuteRows(records),
    ),
  );
  console.log('\nMemory (RSS, MB) and its slope after the first minute:\n');
  const slopes = memorySlope(memory);
  console.log(
    markdownTable(
      ['process', 'first MB', 'last MB', 'max MB', 'slope MB/min'],
      slopes.map((s) => [
        s.name,
        s.first.toFixed(0),
        s.last.toFixed(0),
        s.max.toFixed(0),
        s.slope.toFixed(2),
      ]),
    ),
  );
  if (heapDir) console.log(heapTable(heapSamples, minutes, reading.cadence));
  console.log('\nDatabase connections and queue depth (every 10 s; min / max / last):\n');
  const conns = dbSamples.map((s) => s.connections);
  const queue = dbSamples.map((s) => s.queue);
  console.log(
    markdownTable(
      ['measure', 'min', 'max', 'last'],
      [
        ['connections', String(Math.min(...conns)), String(Math.max(...conns)), String(conns.at(-1))],
        ['queue depth', String(Math.min(...queue)), String(Math.max(...queue)), String(queue.at(-1))],
      ],
    ),
  );
  console.log('\nThe 12 slowest requests (start, m:ss; the instance nginx chose, from its access log):\n');
  console.log(
    markdownTable(['started', 'kind', 'ms', 'instance', 'request id'], slowestRows(records, 12, upstreamOf)),
  );
  console.log(
    '\nThe same 12, their time as nginx and as the service measured it, and the jobs the workers ran meanwhile:\n',
  );
  console.log(
    markdownTable(
      ['started', 'kind', 'bench ms', 'nginx ms', 'service ms', 'jobs running'],
      slowestSplitRows(records, 12, started, nginxMs, serviceLog),
    ),
  );
  const shares = jobOverlapShares(records, 36, started, serviceLog.jobs);
  console.log(
    `\nA job was running during ${(shares.all * 100).toFixed(0)} % of all requests after the first minute, during ${(shares.slowest * 100).toFixed(0)} % of the 36 slowest.\n`,
  );
  console.log(
    "Per minute: the bench's p99, the service's own p99 over the same requests, the workers' job seconds:\n",
  );
  console.log(
    markdownTable(
      ['minute', 'bench p99 ms', 'service p99 ms', 'job s'],
      minuteSplitRows(records, started, serviceLog),
    ),
  );
  console.log(
    '\nEach route as the service timed it, in minute 2 and in the last full minute (p50 growth):\n',
  );
  console.log(
    markdownTable(
      ['route', 'n', 'p50 ms', 'p99 ms', 'n at end', 'p50 at end', 'p99 at end', 'p50 growth'],
      routeGrowthRows(serviceLog, started, minutes),
    ),
  );
  const chance = shuffledOutsideShare(records, P99_BAND);
  console.log(
    `\nBy chance alone (these request times shuffled across the minutes, 200 times): ${(chance.minutes * 100).toFixed(1)} % of minutes fall outside ±${P99_BAND * 100} % of the median p99, and ${(chance.runs * 100).toFixed(0)} % of runs have at least one such minute.`,
  );
  console.log(
    "\nCPU per request each minute: the bench process (the control: its work per request does not change), the set's service processes, PostgreSQL; and how busy the machine was:\n",
  );
  console.log(
    markdownTable(
      ['minute', 'requests', 'bench CPU ms/req', 'set CPU ms/req', 'PostgreSQL CPU ms/req', 'machine busy'],
      cpuMinuteRows(cpuSamples, records, availableParallelism()),
    ),
  );
  console.log("\nThe bench process's own event loop delay, max per minute (ms):\n");
  console.log(
    markdownTable(
      ['minute', 'max ms'],
      [...loopMax]
        .filter(([minute]) => minute >= 0)
        .map(([minute, ms]) => [String(minute + 1), formatMs(ms)]),
    ),
  );
  console.log("\nThe database's background work during the run (each kind once, with its count):\n");
  console.log(databaseEventTable(dbEvents));
  if (server.logFile) {
    console.log(
      "\nPostgreSQL's log during the run: statements of 250 ms or more, lock waits past 200 ms (with the statement that waited), checkpoints:\n",
    );
    console.log(slowLogTable(slowLog, 40));
  }
  if (failures.size > 0) {
    console.log('\nFailures:');
    for (const [what, count] of failures) console.log(`- ${count} × ${what}`);
  }
  // The warm-up's errors are the service's too.
  // With the heap probe, memory is judged after each full collection, less the new space V8
  // resizes (the raw RSS table above stays for comparison); without it, on raw RSS.
  const afterCollection = heapDir ? memorySlope(rssAfterCollection(heapSamples)) : [];
  const result =
    afterCollection.length > 0
      ? verdict([...warmup.filter((r) => !r.ok), ...records], afterCollection, reading.judged)
      : verdict([...warmup.filter((r) => !r.ok), ...records], slopes);
  console.log(`\n${result.lines.join('\n')}`);
  process.exitCode = result.ok ? 0 : 1;
}

await main(postgres);
