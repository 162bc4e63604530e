/**
 * Analytics at 100,000 conversations (issue 20 item 5; target: under 300 ms), in one run on
 * the embedded store: conversations seeded in bulk with SQL over the last 365 days (each with a
 * visitor question, a cited answer and its answer turn; some handed off, some rated, some
 * unanswered), then, side by side, an agent's analytics for 30, 90 and 365 days read from the
 * daily roll-ups (`getAgentAnalytics`, nothing changed since the last read), the same after
 * one new conversation today (one dirty day recomputed first), and the same numbers computed
 * by a full scan of the conversations (`getAgentAnalyticsByFullScan`). Also the first read
 * after the bulk seed, which recomputes every day once.
 *
 * Run: `npm run bench:analytics` (options: `--conversations N` (default 100000), `--runs N`
 * (default 5)). Prints a Markdown table; ratios are measured in the same run, never asserted.
 */
import { loadavg } from 'node:os';
import { sql } from 'kysely';
import { newId } from '../../apps/server/src/security/ids.js';
import {
  getAgentAnalytics,
  getAgentAnalyticsByFullScan,
} from '../../apps/server/src/services/analytics/agent-analytics.js';
import { DEFAULT_THEME } from '../../packages/contract/src/index.js';
import { openEmbeddedStore } from './support/embedded-store.js';
import {
  argument,
  formatMs,
  formatRatio,
  markdownTable,
  positiveIntegers,
  summarize,
} from './support/latency.js';
import { timed } from './support/retrieval-store.js';

const CONVERSATIONS = positiveIntegers(argument('conversations'), [100_000], '--conversations')[0] ?? 100_000;
const RUNS = positiveIntegers(argument('runs'), [5], '--runs')[0] ?? 5;
const BATCH = 10_000;

async function main(): Promise<number> {
  const store = await openEmbeddedStore();
  try {
    const db = store.database.db;
    const workspaceId = store.tenant.workspace.id;
    const agentId = newId();
    await db
      .insertInto('agents')
      .values({
        id: agentId,
        workspace_id: workspaceId,
        name: 'Bench bot',
        theme: JSON.stringify(DEFAULT_THEME),
      })
      .execute();
    const seedStart = performance.now();
    for (let done = 0; done < CONVERSATIONS; done += BATCH) {
      const n = Math.min(BATCH, CONVERSATIONS - done);
      await seedBatch(db, workspaceId, agentId, done, n);
      process.stderr.write(`\rseeded ${done + n} conversations`);
    }
    process.stderr.write('\n');
    const seedMs = performance.now() - seedStart;
    await sql`analyze`.execute(db);
    const scope = { ...store.scope, agentId };
    const today = new Date().toISOString().slice(0, 10);
    const fromFor = (days: number) =>
      new Date(Date.parse(`${today}T00:00:00Z`) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
    const first = await timed(() => getAgentAnalytics(scope, { from: fromFor(365), to: today }));
    const rows: string[][] = [];
    for (const days of [30, 90, 365]) {
      const period = { from: fromFor(days), to: today };
      const rollup: number[] = [];
      const dirty: number[] = [];
      const scan: number[] = [];
      let same = true;
      for (let run = 0; run < RUNS; run += 1) {
        const read = await timed(() => getAgentAnalytics(scope, period));
        rollup.push(read.ms);
        await addConversationToday(db, workspaceId, agentId);
        dirty.push((await timed(() => getAgentAnalytics(scope, period))).ms);
        const full = await timed(() => getAgentAnalyticsByFullScan(scope, period));
        scan.push(full.ms);
        const again = await getAgentAnalytics(scope, period);
        same &&= JSON.stringify(again) === JSON.stringify(full.result);
      }
      const r = summarize(rollup).p50;
      const d = summarize(dirty).p50;
      const s = summarize(scan).p50;
      rows.push([
        `${days} days`,
        formatMs(r),
        formatMs(d),
        formatMs(s),
        formatRatio(s / r),
        same ? 'yes' : 'NO',
      ]);
      console.log(
        `  ${days} days: roll-ups ${formatMs(r)} ms, one dirty day ${formatMs(d)} ms, full scan ${formatMs(s)} ms`,
      );
    }
    console.log(
      `\n${CONVERSATIONS} conversations over 365 days (seeded in ${formatMs(seedMs)} ms); first read after the seed ` +
        `(every day recomputed): ${formatMs(first.ms)} ms; p50 of ${RUNS} runs; load average ${loadavg()[0]?.toFixed(1)}\n`,
    );
    console.log(
      markdownTable(
        [
          'period',
          'roll-ups ms',
          'roll-ups + 1 dirty day ms',
          'full scan ms',
          'full scan / roll-ups',
          'same numbers',
        ],
        rows,
      ),
    );
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * Inserts `n` conversations (numbered from `offset`) in a few statements: a visitor each, a
 * visitor question and a cited answer, the answer turn; every 10th handed off, every 5th rated
 * (3 up to 1 down), every 20th recorded unanswered. Spread over the last 365 days.
 */
async function seedBatch(
  db: Parameters<typeof getAgentAnalytics>[0]['db'],
  workspaceId: string,
  agentId: string,
  offset: number,
  n: number,
) {
  const ids = Array.from({ length: n }, () => newId());
  await sql`insert into visitors (id, workspace_id, agent_id, anon_id)
    select 'v' || u.id, ${workspaceId}, ${agentId}, 'anon-' || u.id from unnest(${ids}::text[]) as u(id)`.execute(
    db,
  );
  await sql`insert into conversations (id, workspace_id, agent_id, visitor_id, created_at, human_requested_at,
      satisfaction_rating)
    select u.id, ${workspaceId}, ${agentId}, 'v' || u.id,
      now() - ((u.n + ${offset}) % 365) * interval '1 day' - ((u.n * 7919) % 86400) * interval '1 second',
      case when (u.n + ${offset}) % 10 = 0 then now() end,
      case when (u.n + ${offset}) % 5 = 0 then (case when (u.n + ${offset}) % 20 = 0 then -1 else 1 end) end
    from unnest(${ids}::text[]) with ordinality as u(id, n)`.execute(db);
  await sql`insert into messages (id, workspace_id, conversation_id, role, content, citations, created_at)
    select 'q' || c.id, ${workspaceId}, c.id, 'visitor', 'Question number ' || ((u.n + ${offset}) % 200), '[]', c.created_at
    from unnest(${ids}::text[]) with ordinality as u(id, n) join conversations c on c.id = u.id
    union all
    select 'a' || c.id, ${workspaceId}, c.id, 'assistant', 'Answer [1].',
      jsonb_build_array(jsonb_build_object('id', 1, 'url', 'https://shop.example.com/page-' || ((u.n + ${offset}) % 50),
        'title', 'Page ' || ((u.n + ${offset}) % 50))), c.created_at
    from unnest(${ids}::text[]) with ordinality as u(id, n) join conversations c on c.id = u.id`.execute(db);
  await sql`insert into answer_turns (id, workspace_id, agent_id, conversation_id, question_message_id, answer_message_id,
      question, answer, outcome, provider, latency_ms, created_at)
    select 't' || c.id, ${workspaceId}, ${agentId}, c.id, 'q' || c.id, 'a' || c.id,
      'Question number ' || ((u.n + ${offset}) % 200), 'Answer [1].',
      case when (u.n + ${offset}) % 20 = 7 then 'no_answer' else 'answered' end, 'bench', 40, c.created_at
    from unnest(${ids}::text[]) with ordinality as u(id, n) join conversations c on c.id = u.id`.execute(db);
  await sql`insert into agent_questions (id, workspace_id, agent_id, conversation_id, turn_id, question, reasons, created_at)
    select 'g' || c.id, ${workspaceId}, ${agentId}, c.id, 't' || c.id, 'Question number ' || ((u.n + ${offset}) % 200),
      array['no_match', 'fallback'], c.created_at
    from unnest(${ids}::text[]) with ordinality as u(id, n) join conversations c on c.id = u.id
    where (u.n + ${offset}) % 20 = 7`.execute(db);
}

/** One more conversation started now, with a visitor message: today's roll-up is dirty again. */
async function addConversationToday(
  db: Parameters<typeof getAgentAnalytics>[0]['db'],
  workspaceId: string,
  agentId: string,
) {
  const id = newId();
  await sql`insert into visitors (id, workspace_id, agent_id, anon_id) values (${`v${id}`}, ${workspaceId}, ${agentId}, ${`anon-${id}`})`.execute(
    db,
  );
  await sql`insert into conversations (id, workspace_id, agent_id, visitor_id) values (${id}, ${workspaceId}, ${agentId}, ${`v${id}`})`.execute(
    db,
  );
  await sql`insert into messages (id, workspace_id, conversation_id, role, content) values (${`q${id}`}, ${workspaceId}, ${id}, 'visitor', 'Hello')`.execute(
    db,
  );
}

process.exitCode = await main();
