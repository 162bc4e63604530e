// PostgreSQL stopped and started again under mixed traffic (admin writes and reads, widget init)
// on a private cluster the test creates: while it is down every request answers at once with 503
// `not_ready` (no hang, no 500) and /readyz says the database check fails; once it is back the
// instance serves again by itself, without a restart; every write that got a 2xx is stored.
// Runs once per CI, in the PGlite pass; the PostgreSQL pass (TEST_DATABASE_URL set) skips it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { generateAppKey } from '../../src/config/app-key.js';
import { field, ServiceProcess, text } from '../support/processes.js';
import {
  clusterUnavailable,
  createDatabases,
  type PrivateCluster,
  startPrivateCluster,
} from './support/private-cluster.js';
import { bootstrapOwner, createAgent, ORIGIN, sleep } from './support/service-http.js';

const skip = process.env.TEST_DATABASE_URL
  ? 'runs once per CI, in the PGlite pass (it makes its own PostgreSQL cluster)'
  : clusterUnavailable();

/** One request of the traffic: what it was, its status (0: no answer within the bound) and phase. */
type Outcome = { op: string; status: number; phase: 'up' | 'down' | 'back'; code: unknown; id?: string };

/** No request may take longer than this: past it, the request counts as hung. */
const HANG_MS = 15_000;

describe('PostgreSQL restarted under traffic: fail fast, recover alone, lose nothing', { skip }, () => {
  let cluster: PrivateCluster;
  let env: Record<string, string>;
  let service: ServiceProcess;
  let url: string;
  let auth: Record<string, string>;
  let agentId: string;
  let phase: Outcome['phase'] = 'up';
  const outcomes: Outcome[] = [];
  const attempted = new Set<string>();

  before(async () => {
    cluster = await startPrivateCluster();
    await createDatabases(cluster, 'svc');
    env = {
      DATABASE_URL: cluster.url('svc'),
      APP_KEY: generateAppKey(),
      PORT: '0',
      HOST: '127.0.0.1',
      BCRYPT_COST: '4',
      ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
      WIDGET_RATE_LIMIT_SCALE: '1000',
      DATABASE_POOL_SIZE: '4',
    };
    service = new ServiceProcess(env);
    url = await service.waitForUrl(120_000);
    ({ auth } = await bootstrapOwner(env));
    agentId = await createAgent(url, auth, 'Widget agent');
  });
  after(async () => {
    service?.kill();
    await service?.exited;
    await cluster?.destroy();
  });

  async function request(op: string, path: string, init: RequestInit): Promise<Outcome> {
    const at = phase;
    try {
      const res = await fetch(`${url}${path}`, { ...init, signal: AbortSignal.timeout(HANG_MS) });
      const body: unknown = await res.json().catch(() => null);
      const outcome: Outcome = { op, status: res.status, phase: at, code: field(body, 'code') };
      if (op === 'create' && res.status === 201) outcome.id = text(field(body, 'data', 'id'));
      return outcome;
    } catch (error) {
      return { op, status: 0, phase: at, code: error instanceof Error ? error.name : String(error) };
    }
  }

  /** One client: creates an agent, lists agents, inits a widget session, again and again. */
  async function client(n: number, running: () => boolean): Promise<void> {
    for (let i = 0; running(); i += 1) {
      const name = `Traffic ${n}-${i}`;
      attempted.add(name);
      outcomes.push(
        await request('create', '/api/v1/admin/agents', {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ name }),
        }),
      );
      outcomes.push(await request('list', '/api/v1/admin/agents?limit=5', { headers: auth }));
      outcomes.push(
        await request('init', '/v1/widget/init', {
          method: 'POST',
          headers: { origin: ORIGIN, 'content-type': 'application/json' },
          body: JSON.stringify({ agent_id: agentId, anon_id: `anon_${n}${i}`.padEnd(21, '0') }),
        }),
      );
      await sleep(50);
    }
  }

  test('the database goes away and comes back while three clients keep calling', async () => {
    let running = true;
    const clients = [0, 1, 2].map((n) => client(n, () => running));
    await sleep(2_000);
    phase = 'down';
    await cluster.stop('fast');
    // While it is down, /readyz answers 503 and names the failing check.
    await sleep(1_000);
    assert.equal(
      service.exit,
      null,
      `the service is still up: ${service.stderr}\n${service.rawStdout.slice(-15).join('\n')}`,
    );
    const ready = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(HANG_MS) });
    assert.equal(ready.status, 503);
    const readyBody: unknown = await ready.json();
    assert.equal(field(readyBody, 'status'), 'not_ready');
    assert.equal(field(readyBody, 'checks', 'database'), 'error');
    await sleep(4_000);
    await cluster.start();
    phase = 'back';
    // The same process recovers: /readyz is 200 again without any restart.
    const deadline = Date.now() + 60_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(HANG_MS) })).status;
      if (status === 200) break;
      await sleep(250);
    }
    assert.equal(status, 200, 'ready again after the database came back');
    const recoveredAt = outcomes.length;
    await sleep(3_000);
    running = false;
    await Promise.all(clients);
    assert.equal(service.exit, null, 'the service never stopped');

    const hung = outcomes.filter((outcome) => outcome.status === 0);
    assert.deepEqual(hung, [], 'no request hung');
    const unexpected = outcomes.filter((o) => ![200, 201, 503].includes(o.status));
    assert.deepEqual(unexpected, [], 'only successes and 503');
    const down = outcomes.filter((o) => o.phase === 'down' && o.status === 503);
    assert.ok(down.length >= 3, `requests failed while the database was down: ${down.length}`);
    for (const o of outcomes.filter((x) => x.status === 503)) assert.equal(o.code, 'not_ready');
    // After recovery every kind of request succeeds again.
    const after = outcomes.slice(recoveredAt);
    for (const op of ['create', 'list', 'init']) {
      const ofOp = after.filter((o) => o.op === op);
      assert.ok(
        ofOp.length > 0 && ofOp.every((o) => o.status < 300),
        `${op} after recovery: ${JSON.stringify(ofOp)}`,
      );
    }
  });

  test('every acknowledged write is stored, and nothing else', async () => {
    const acknowledged = outcomes.flatMap((o) => (o.id ? [o.id] : []));
    assert.ok(acknowledged.length > 0);
    const db = new pg.Client({ connectionString: cluster.url('svc') });
    await db.connect();
    try {
      const rows = await db.query<{ id: string; name: string }>('select id, name from agents');
      const stored = new Set(rows.rows.map((row) => row.id));
      const missing = acknowledged.filter((id) => !stored.has(id));
      assert.deepEqual(missing, [], 'no acknowledged write lost');
      const invented = rows.rows.filter((row) => row.name !== 'Widget agent' && !attempted.has(row.name));
      assert.deepEqual(invented, []);
      process.stdout.write(
        `# ${outcomes.length} requests, ${acknowledged.length} writes acknowledged, ${rows.rows.length - 1} stored, ` +
          `${outcomes.filter((o) => o.status === 503).length} answered 503\n`,
      );
    } finally {
      await db.end();
    }
  });
});
