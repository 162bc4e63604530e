/**
 * Throughput of the multi-instance set with 1, 2 and 3 service instances behind nginx (one
 * worker, PostgreSQL, Redis, a fake model on loopback), side by side in one run: widget inits,
 * widget answers and signed site syncs (50 posts a batch), each a closed loop of `--connections`
 * clients for `--seconds`; requests per second, the ratio to one instance, and the database
 * connections each instance holds. The figures behind docs/scaling.md.
 *
 *   npm run bench:cluster --workspace bench -- --instances 1,2,3 --seconds 15 --connections 16 --rounds 3
 *   (--postgres shared: the machine's server instead of one of its own; see support/bench-postgres.ts)
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { staleBuild } from '../../scripts/cluster/service-code.mjs';
import { clusterUnavailable, ROOT, startCluster } from '../../scripts/cluster/start-cluster.mjs';
import { openBenchPostgres, type PostgresChoice, postgresChoice } from './support/bench-postgres.js';
import {
  type Ctx,
  call,
  clusterEnv,
  commandCpuMs,
  cpuMs,
  dataOf,
  machineBusyMs,
  ORIGIN,
  postRecord,
  queueDrained,
  setUp,
  syncPosts,
} from './support/cluster-traffic.js';
import { startFakeOpenAi } from './support/fake-openai.js';
import { argument, formatMs, formatRatio, markdownTable, summarize } from './support/latency.js';

const sizes = (argument('instances') ?? '1,2,3').split(',').map(Number);
const seconds = Number(argument('seconds') ?? 15);
const connections = Number(argument('connections') ?? 16);
/**
 * Rounds: the sizes run in turn this many times (1, 2, 3, 1, 2, 3, …), and each figure is the
 * median over the rounds with the range of requests per second beside it. On a shared machine one
 * round's 10 s windows differ by up to 2× from the next; interleaving puts a slow spell on every size.
 */
const rounds = Number(argument('rounds') ?? 1);
/** Which PostgreSQL (support/bench-postgres.ts): `private` (default) or `shared`. */
const postgres = postgresChoice(argument('postgres'));
/**
 * `--code built` (default): the set runs the build (`npm run build` first), as operators run it
 * and as bench:soak does; `sources`: the TypeScript through tsx (the runs in bench/README before
 * "Cluster throughput from the build" were measured that way).
 */
const codeArgument = argument('code') ?? 'built';
const code = codeArgument === 'sources' ? 'sources' : 'built';
if (
  !sizes.every((n) => Number.isInteger(n) && n >= 1 && n <= 8) ||
  !(seconds > 0) ||
  !(connections > 0) ||
  !(Number.isInteger(rounds) && rounds >= 1 && rounds <= 9) ||
  !postgres ||
  (codeArgument !== 'built' && codeArgument !== 'sources')
) {
  console.error(
    'usage: cluster-throughput.bench.ts [--instances 1,2,3] [--seconds 15] [--connections 16] [--rounds 1] [--postgres private|shared] [--code built|sources]',
  );
  process.exit(2);
}

type Scenario = 'widget init' | 'widget answer' | 'site sync (50 posts)';
const SCENARIOS: Scenario[] = ['widget init', 'widget answer', 'site sync (50 posts)'];
type Result = {
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  firstError: string | null;
  /** CPU ms per answered request: the service's processes (instances and worker), the whole machine. */
  serviceCpu: number;
  databaseCpu: number;
  machineCpu: number;
  /** Seconds the worker needed after the loop to finish the queued jobs (site sync). */
  drain: number;
};

const widgetHeaders = (token?: string) => ({
  'content-type': 'application/json',
  origin: ORIGIN,
  ...(token ? { authorization: `Bearer ${token}` } : {}),
});

async function initVisitor(ctx: Ctx): Promise<{ status: number; token: string | null }> {
  const answer = await call(ctx.cluster.url, 'POST', '/v1/widget/init', {
    headers: widgetHeaders(),
    body: JSON.stringify({ agent_id: ctx.agentId, anon_id: `tp${randomBytes(10).toString('hex')}` }),
  });
  const token = dataOf(answer.json).token;
  return { status: answer.status, token: typeof token === 'string' ? token : null };
}

/** One request of the scenario; answers its status and, when refused, what the body said. */
async function once(
  scenario: Scenario,
  ctx: Ctx,
  tokens: string[],
): Promise<{ status: number; body: unknown }> {
  const answer = await send(scenario, ctx, tokens);
  return { status: answer.status, body: answer.json };
}

async function send(
  scenario: Scenario,
  ctx: Ctx,
  tokens: string[],
): Promise<{ status: number; json: unknown }> {
  if (scenario === 'widget init') {
    return call(ctx.cluster.url, 'POST', '/v1/widget/init', {
      headers: widgetHeaders(),
      body: JSON.stringify({ agent_id: ctx.agentId, anon_id: `tp${randomBytes(10).toString('hex')}` }),
    });
  }
  if (scenario === 'widget answer') {
    const token = tokens[Math.floor(Math.random() * tokens.length)] ?? '';
    const answer = await call(ctx.cluster.url, 'POST', '/v1/widget/messages', {
      headers: widgetHeaders(token),
      body: JSON.stringify({ message: 'How long does shipping take?' }),
    });
    return answer;
  }
  const posts = Array.from({ length: 50 }, () => {
    ctx.nextPost += 1;
    return postRecord(1 + (ctx.nextPost % 500), ctx.nextPost);
  });
  return syncPosts(ctx, posts);
}

/** `connections` clients, each sending the next request when the last one is answered. */
async function closedLoop(scenario: Scenario, ctx: Ctx, tokens: string[]): Promise<Result> {
  const times: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  const end = performance.now() + seconds * 1000;
  const client = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const answer = await once(scenario, ctx, tokens).catch((error: unknown) => ({
        status: 0,
        body: error instanceof Error ? error.message : String(error),
      }));
      if (answer.status >= 200 && answer.status < 300) times.push(performance.now() - t0);
      else {
        errors += 1;
        firstError ??= `${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
      }
    }
  };
  const pids = [...ctx.cluster.instances, ...ctx.cluster.workers].map((process) => process.pid);
  const serviceBefore = pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const databaseBefore = commandCpuMs('postgres');
  const machineBefore = machineBusyMs();
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, client));
  const elapsed = (performance.now() - started) / 1000;
  // A sync is answered once its posts are queued: their indexing is part of its cost.
  const drainStarted = performance.now();
  if (scenario === 'site sync (50 posts)') await queueDrained(ctx.cluster.databaseUrl);
  const drain = (performance.now() - drainStarted) / 1000;
  const serviceCpu = pids.reduce((sum, pid) => sum + cpuMs(pid), 0) - serviceBefore;
  const machineCpu = machineBusyMs() - machineBefore;
  const databaseCpu = commandCpuMs('postgres') - databaseBefore;
  const summary = summarize(times);
  const answered = Math.max(1, times.length);
  return {
    perSecond: times.length / elapsed,
    p50: summary.p50,
    p99: summary.p99,
    errors,
    firstError,
    serviceCpu: serviceCpu / answered,
    databaseCpu: databaseCpu / answered,
    machineCpu: machineCpu / answered,
    drain,
  };
}

/** Each figure's median over the rounds (errors summed, the first refusal kept); null for none. */
function medianResult(runs: readonly Result[]): Result | null {
  if (runs.length === 0) return null;
  // Nearest rank, as every other figure here: the middle round's value for an odd count.
  const median = (pick: (run: Result) => number) => summarize(runs.map(pick)).p50;
  return {
    perSecond: median((run) => run.perSecond),
    p50: median((run) => run.p50),
    p99: median((run) => run.p99),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    firstError: runs.find((run) => run.firstError)?.firstError ?? null,
    serviceCpu: median((run) => run.serviceCpu),
    databaseCpu: median((run) => run.databaseCpu),
    machineCpu: median((run) => run.machineCpu),
    drain: median((run) => run.drain),
  };
}

async function main(postgres: PostgresChoice): Promise<void> {
  const server = await openBenchPostgres(postgres, 'cluster bench');
  const adminDatabaseUrl = server.adminUrl;
  const database = adminDatabaseUrl ? { adminDatabaseUrl } : {};
  const stale = code === 'built' ? staleBuild(ROOT) : null;
  const unavailable = stale ?? (await clusterUnavailable({ installNginx: true, ...database }));
  if (unavailable) {
    await server.close();
    console.error(`cluster bench: cannot start the set: ${unavailable}`);
    process.exit(1);
  }
  let autovacuum = '?';
  const fake = await startFakeOpenAi(['Shipping takes two days. ', 'Anything else?']);
  const results = new Map<number, Map<Scenario, Result[]>>();
  const connectionsPerInstance = new Map<number, number>();
  const order = Array.from({ length: rounds }, (_, round) => sizes.map((size) => ({ round, size }))).flat();
  try {
    for (const { round, size } of order) {
      process.stderr.write(`cluster bench: round ${round + 1} of ${rounds}, ${size} instance(s)…\n`);
      const cluster = await startCluster({
        code,
        instances: size,
        workers: 1,
        env: clusterEnv(fake.baseUrl),
        ...database,
      });
      try {
        const ctx = await setUp(cluster);
        const tokens: string[] = [];
        for (let i = 0; i < 50; i += 1) {
          const visitor = await initVisitor(ctx);
          if (visitor.token) tokens.push(visitor.token);
        }
        const row = results.get(size) ?? new Map<Scenario, Result[]>();
        results.set(size, row);
        for (const scenario of SCENARIOS) {
          const result = await closedLoop(scenario, ctx, tokens);
          row.set(scenario, [...(row.get(scenario) ?? []), result]);
          process.stderr.write(`  ${scenario}: ${result.perSecond.toFixed(1)}/s\n`);
        }
        // A refusal with a 500 is a bug: show what the processes logged at error level.
        for (const processInfo of [...cluster.instances, ...cluster.workers]) {
          const errorsLogged = processInfo
            .log()
            .split('\n')
            .filter((line) => /"level":(50|60)/.test(line));
          for (const line of errorsLogged.slice(0, 3)) {
            console.log(`${processInfo.name} logged: ${line.slice(0, 1500)}`);
          }
        }
        const db = new pg.Client({ connectionString: cluster.databaseUrl });
        await db.connect();
        const held = await db.query<{ n: string }>(
          'select count(*)::text as n from pg_stat_activity where datname = current_database()',
        );
        autovacuum =
          (await db.query<{ v: string }>("select current_setting('autovacuum') as v")).rows[0]?.v ?? '?';
        await db.end();
        // The bench's own client is one of them; the workers hold the rest beside the instances.
        connectionsPerInstance.set(size, (Number(held.rows[0]?.n) - 1) / (size + 1));
      } finally {
        await cluster.stop();
      }
    }
  } finally {
    await fake.close();
    await server.close();
  }

  const base = results.get(sizes[0] ?? 1);
  console.log(
    `\n## Throughput with ${sizes.join(', ')} instance(s) behind nginx (${connections} clients, ${seconds} s per scenario, ${rounds === 1 ? 'one round' : `medians of ${rounds} interleaved rounds`}, 1 worker, running the ${code === 'built' ? 'build' : 'sources through tsx'}, PostgreSQL ${server.describe} with autovacuum ${autovacuum}, Redis, fake model)\n`,
  );
  const rows: string[][] = [];
  for (const scenario of SCENARIOS) {
    for (const size of sizes) {
      const runs = results.get(size)?.get(scenario) ?? [];
      const result = medianResult(runs);
      const first = medianResult(base?.get(scenario) ?? []);
      if (!result || !first) continue;
      const perSecond = runs.map((run) => run.perSecond);
      rows.push([
        `${scenario}, ${size} instance(s)`,
        result.perSecond.toFixed(1),
        `${Math.min(...perSecond).toFixed(0)}–${Math.max(...perSecond).toFixed(0)}`,
        formatRatio(result.perSecond / first.perSecond),
        formatMs(result.p50),
        formatMs(result.p99),
        String(result.errors),
        result.serviceCpu.toFixed(1),
        result.databaseCpu.toFixed(1),
        result.machineCpu.toFixed(1),
        scenario === 'site sync (50 posts)' ? result.drain.toFixed(1) : '',
      ]);
    }
  }
  console.log(
    markdownTable(
      [
        'scenario',
        'req/s',
        'req/s range',
        `vs ${sizes[0]}`,
        'p50 ms',
        'p99 ms',
        'errors',
        'service CPU ms/req',
        'PostgreSQL CPU ms/req',
        'machine CPU ms/req',
        'index drain s',
      ],
      rows,
    ),
  );
  console.log(
    '\nCPU ms per answered request: the service processes (instances and the worker, from /proc/<pid>/stat),' +
      " PostgreSQL's processes, and the whole machine (from /proc/stat: also Redis, nginx, the bench itself and" +
      ' anything else running). A site' +
      " sync's CPU includes indexing its 50 posts, until the queue is empty (the drain after the loop).",
  );
  for (const [size, row] of results) {
    for (const [scenario, runs] of row) {
      const refused = runs.find((run) => run.firstError);
      if (refused) console.log(`first refusal, ${scenario}, ${size} instance(s): ${refused.firstError}`);
    }
  }
  console.log('\nDatabase connections per process (instances and the worker, each its own pools):\n');
  console.log(
    markdownTable(
      ['instances', 'connections per process'],
      sizes.map((size) => [String(size), (connectionsPerInstance.get(size) ?? 0).toFixed(1)]),
    ),
  );
}

await main(postgres);
