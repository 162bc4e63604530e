// An instance stopped with SIGTERM while it streams answers: the answers finish, /readyz says
// 503 `draining`, and once it closes its port nginx sends every new request to the others.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Cluster, readAccessLog, startCluster } from '../../../../scripts/cluster/start-cluster.mjs';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import {
  adminAuth,
  clusterSkip,
  createAgent,
  eventually,
  initWidget,
  send,
  servedBy,
  streamAnswer,
  widgetSession,
} from './cluster-support.js';

const skip = await clusterSkip();
// Ten chunks 300 ms apart: each answer streams for about 3 s.
const CHUNKS = Array.from({ length: 10 }, (_, i) => `part ${i}. `);
const DRAIN_MS = 2_000;

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('cluster: an instance stopped with SIGTERM during streams', { skip }, () => {
  let cluster: Cluster;
  let llm: FakeLlm;
  before(async () => {
    llm = await startFakeLlm({ script: [{ kind: 'text', chunks: CHUNKS, delayMs: 300 }] });
    cluster = await startCluster({
      instances: 3,
      workers: 1,
      env: {
        LLM_PROVIDER: 'openai',
        LLM_BASE_URL: llm.openAiBaseUrl,
        LLM_MODEL: 'fake',
        SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      },
    });
  });
  after(async () => {
    await cluster?.stop();
    await llm?.close();
  });

  test('in-flight answers finish, readyz says draining, then nginx routes nothing new to it', async () => {
    const agentId = await createAgent(cluster);
    const victim = cluster.instances[0];
    assert.ok(victim?.url && victim.port);
    const victimUpstream = `127.0.0.1:${victim.port}`;
    const before = llm.requests.length;
    // Streams through nginx (spread over the three) and two straight to the instance we stop.
    const sessions = await Promise.all(Array.from({ length: 6 }, () => widgetSession(cluster.url, agentId)));
    const direct = await Promise.all([
      widgetSession(victim.url, agentId),
      widgetSession(victim.url, agentId),
    ]);
    const streams = [
      ...sessions.map((session, i) => streamAnswer(cluster.url, session, `Tell me about part ${i}`)),
      ...direct.map((session, i) => streamAnswer(victim.url ?? '', session, `Direct question ${i}`)),
    ];
    await eventually('every answer streaming', async () =>
      llm.requests.length - before >= 8 ? true : undefined,
    );

    const stopped = victim.stop('SIGTERM');
    const draining = await eventually('readyz 503 draining', async () => {
      const ready = await send(victim.url ?? '', 'GET', '/readyz').catch(() => {
        throw new Error('the instance closed its port before /readyz ever answered 503');
      });
      return ready.status === 503 ? ready : undefined;
    });
    assert.equal((draining.json() as { status: string }).status, 'draining');
    // While it drains it still serves: requests sent now succeed wherever nginx puts them.
    for (let i = 0; i < 3; i += 1) {
      const init = await initWidget(cluster.url, agentId);
      assert.equal(init.status, 200, init.text);
    }

    await eventually('the stopping instance to close its port', async () =>
      (await listening(victim.port ?? 0)) ? undefined : true,
    );
    const afterClose = readAccessLog(cluster.accessLog).length;
    const requestIds: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const answer =
        i % 2 === 0
          ? await initWidget(cluster.url, agentId)
          : await send(cluster.url, 'GET', '/api/v1/admin/agents', { headers: adminAuth(cluster) });
      assert.equal(answer.status, 200, `request ${i + 1} after the close: ${answer.text}`);
      requestIds.push(answer.headers.get('x-request-id') ?? '');
    }
    const lines = readAccessLog(cluster.accessLog).slice(afterClose);
    for (const id of requestIds)
      assert.notEqual(
        await servedBy(cluster, id),
        0,
        `request ${id} was served by it:\n${lines.map((line) => line.raw).join('\n')}\n${victim.log().slice(-3000)}`,
      );
    const later = readAccessLog(cluster.accessLog).slice(afterClose);
    assert.ok(
      later.every((entry) => entry.upstream !== victimUpstream && entry.status < 500),
      JSON.stringify(later),
    );

    // Every answer that was streaming ended with `done` (or a clean error frame), none cut off.
    const answers = await Promise.all(streams);
    let onVictim = 0;
    for (const [i, answer] of answers.entries()) {
      assert.equal(answer.status, 200);
      const last = answer.frames.at(-1);
      assert.ok(
        last && (last.event === 'done' || last.event === 'error'),
        `stream ${i}: ${JSON.stringify(answer.frames)}`,
      );
      if (last.event === 'done')
        assert.equal((last.data as { text: string }).text.trim(), CHUNKS.join('').trim());
      if (i >= sessions.length || (await servedBy(cluster, answer.requestId)) === 0) onVictim += 1;
    }
    assert.ok(onVictim >= 2, `streams on the stopped instance: ${onVictim}`);
    assert.ok(
      answers.every((answer) => answer.frames.at(-1)?.event === 'done'),
      'a drained answer ended with an error frame',
    );
    const exit = await stopped;
    assert.deepEqual(exit, { code: 0, signal: null }, victim.log().slice(-2000));
    assert.match(victim.log(), /draining: \/readyz answers 503/);
  });
});
