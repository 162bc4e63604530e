// Three instances and two workers behind nginx (scripts/cluster): a visitor's answers, an
// operator's reply, the widget's rate limit and an admin session each behave as on one instance.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Cluster, startCluster } from '../../../../scripts/cluster/start-cluster.mjs';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import {
  adminAuth,
  clusterSkip,
  createAgent,
  dataOf,
  initWidget,
  query,
  send,
  servedBy,
  streamAnswer,
  widgetCall,
  widgetSession,
} from './cluster-support.js';

const skip = await clusterSkip();
const REPLY = ['Our shop ', 'opens at ', 'nine.'];

describe('cluster: 3 instances behind nginx serve the widget and the console as one', { skip }, () => {
  let cluster: Cluster;
  let llm: FakeLlm;
  before(async () => {
    llm = await startFakeLlm({ script: [{ kind: 'text', chunks: REPLY }] });
    cluster = await startCluster({
      instances: 3,
      workers: 2,
      env: { LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.openAiBaseUrl, LLM_MODEL: 'fake' },
    });
  });
  after(async () => {
    await cluster?.stop();
    await llm?.close();
  });

  test('every instance is ready, and widget answers stream through nginx whichever instance serves them', async () => {
    for (const instance of cluster.instances) {
      const ready = await send(instance.url ?? '', 'GET', '/readyz');
      assert.equal(ready.status, 200, ready.text);
      assert.equal((ready.json() as { status: string }).status, 'ready');
    }
    const agentId = await createAgent(cluster);
    const served = new Set<number>();
    let crossed = 0;
    for (let i = 0; i < 6; i += 1) {
      const session = await widgetSession(cluster.url, agentId);
      const answer = await streamAnswer(cluster.url, session, `What time do you open? (${i})`);
      assert.equal(answer.status, 200);
      assert.match(answer.contentType, /^text\/event-stream/);
      const events = answer.frames.map((frame) => frame.event);
      assert.equal(events[0], 'start');
      assert.equal(events.at(-1), 'done', JSON.stringify(answer.frames));
      assert.equal((answer.frames.at(-1)?.data as { text?: string } | undefined)?.text, REPLY.join(''));
      const streamedOn = await servedBy(cluster, answer.requestId);
      served.add(streamedOn);
      if (streamedOn !== (await servedBy(cluster, session.requestId))) crossed += 1;
    }
    assert.ok(served.size >= 2, `answers were served by ${served.size} instance(s)`);
    // A token issued by one instance is honoured by another.
    assert.ok(crossed >= 1, 'no answer was streamed by another instance than its init');
  });

  test('an operator reply sent through instance A reaches the visitor polling instance B', async () => {
    const [a, b] = cluster.instances;
    assert.ok(a?.url && b?.url);
    const agentId = await createAgent(cluster);
    const session = await widgetSession(cluster.url, agentId);
    const handoff = await widgetCall(cluster.url, 'POST', '/v1/widget/request-human', session);
    assert.equal(handoff.status, 200, handoff.text);
    const base = `/api/v1/admin/conversations/${session.conversationId}`;
    const claim = await send(a.url, 'POST', `${base}/claim`, { headers: adminAuth(cluster) });
    assert.equal(claim.status, 200, claim.text);
    const reply = await send(a.url, 'POST', `${base}/messages`, {
      headers: adminAuth(cluster),
      body: { content: 'Hi, Ana here from the team.' },
    });
    const sent = dataOf(reply, 201);
    const poll = dataOf(await widgetCall(b.url, 'GET', '/v1/widget/conversation/messages', session), 200);
    assert.equal(poll.status, 'claimed');
    const messages = poll.messages as { id: string; role: string; content: string }[];
    assert.deepEqual(
      messages
        .filter((message) => message.role === 'operator')
        .map((message) => [message.id, message.content]),
      [[sent.id, 'Hi, Ana here from the team.']],
    );
  });

  test('the 61st widget init in a minute is refused though nginx spreads the 60 over the instances', async () => {
    const agentId = await createAgent(cluster);
    const served = new Set<number>();
    for (let i = 0; i < 60; i += 1) {
      // A client cannot pick the address its limit counts against: nginx overwrites the header.
      const answer = await initWidget(cluster.url, agentId, { 'x-forwarded-for': `203.0.113.${i}` });
      assert.equal(answer.status, 200, `init ${i + 1}: ${answer.text}`);
      served.add(await servedBy(cluster, answer.headers.get('x-request-id') ?? ''));
    }
    assert.equal(served.size, 3, `the 60 inits reached ${served.size} instance(s)`);
    for (const instance of cluster.instances) {
      const refused = await initWidget(instance.url ?? '', agentId, { 'x-forwarded-for': '127.0.0.1' });
      assert.equal(refused.status, 429, `${instance.name}: ${refused.text}`);
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
    }
    const throughNginx = await initWidget(cluster.url, agentId, { 'x-forwarded-for': '198.51.100.7' });
    assert.equal(throughNginx.status, 429, throughNginx.text);
  });

  test('an admin session and its CSRF token made on one instance work on every instance', async () => {
    assert.ok(cluster.admin);
    const first = cluster.instances[0]?.url ?? '';
    const signIn = await send(first, 'POST', '/api/v1/admin/session', {
      body: { email: cluster.admin.email, password: cluster.admin.password },
    });
    const csrf = String(dataOf(signIn, 200).csrf_token);
    const cookie = /svc_admin_session=[^;]+/.exec(signIn.headers.get('set-cookie') ?? '')?.[0];
    assert.ok(cookie, signIn.headers.get('set-cookie') ?? 'no set-cookie');
    const names: string[] = [];
    for (const base of [...cluster.instances.map((instance) => instance.url ?? ''), cluster.url]) {
      const list = await send(base, 'GET', '/api/v1/admin/agents', { headers: { cookie } });
      assert.equal(list.status, 200, `${base}: ${list.text}`);
      const refused = await send(base, 'POST', '/api/v1/admin/agents', {
        headers: { cookie },
        body: { name: `No CSRF via ${base}` },
      });
      assert.equal(refused.status, 403, `${base}: ${refused.text}`);
      const name = `Session agent via ${base}`;
      const created = await send(base, 'POST', '/api/v1/admin/agents', {
        headers: { cookie, 'x-csrf-token': csrf },
        body: { name },
      });
      assert.equal(created.status, 201, `${base}: ${created.text}`);
      names.push(name);
    }
    const stored = await query<{ name: string }>(
      cluster,
      "select name from agents where name like 'Session agent via %' or name like 'No CSRF via %' order by name",
    );
    assert.deepEqual(
      stored.map((row) => row.name),
      [...names].sort(),
      'each instance created its agent; none without the CSRF token',
    );
  });
});
