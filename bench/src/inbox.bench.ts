/**
 * The inbox list at 10,000 open conversations (issue 20), in one run on the embedded store:
 * open and closed conversations seeded in bulk with SQL (a visitor message and an answer each),
 * then `listConversations` (services/conversations/conversation-inbox.ts, called through its
 * exported function only) timed for the first page, the open filter and a page ten pages deep,
 * first with the store's indexes and then, side by side in the same run, after dropping the
 * conversations' workspace index (`conversations_workspace_idx`): the same list without it.
 * Before that, the inbox counts (`countInbox`) beside the same counts with the unread flag as it
 * was before migration 0031, alternated on the same data.
 *
 * Run: `npm run bench:inbox` (options: `--open N` (default 10000), `--closed N` (default
 * 40000), `--runs N` (default 9)). Prints a Markdown table; ratios are never asserted.
 */
import { loadavg } from 'node:os';
import { sql } from 'kysely';
import { newId } from '../../apps/server/src/security/ids.js';
import {
  filterCondition,
  listConversations,
} from '../../apps/server/src/services/conversations/conversation-inbox.js';
import { countInbox } from '../../apps/server/src/services/conversations/inbox-reads.js';
import { DEFAULT_THEME, INBOX_FILTERS } from '../../packages/contract/src/index.js';
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

const OPEN = positiveIntegers(argument('open'), [10_000], '--open')[0] ?? 10_000;
const CLOSED = positiveIntegers(argument('closed'), [40_000], '--closed')[0] ?? 40_000;
const RUNS = positiveIntegers(argument('runs'), [9], '--runs')[0] ?? 9;
const PAGE = 50;

type Case = { name: string; run: () => Promise<unknown> };

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
    for (const [status, n] of [
      ['open', OPEN],
      ['closed', CLOSED],
    ] as const) {
      for (let done = 0; done < n; done += 10_000)
        await seed(db, workspaceId, agentId, status, Math.min(10_000, n - done));
    }
    await sql`analyze`.execute(db);
    const scope = { db, workspaceId, clock: store.scope.clock, userId: null };
    // The cursor of the tenth page, found once (the same for both runs).
    let cursor: string | undefined;
    for (let page = 0; page < 9; page += 1) {
      cursor =
        (await listConversations({ ...scope, limit: PAGE, ...(cursor ? { cursor } : {}) })).nextCursor ??
        undefined;
    }
    const deep = cursor;
    const cases: Case[] = [
      { name: 'first page, all', run: () => listConversations({ ...scope, limit: PAGE }) },
      { name: 'first page, open', run: () => listConversations({ ...scope, limit: PAGE, status: 'open' }) },
      {
        name: 'first page, agent + open',
        run: () => listConversations({ ...scope, limit: PAGE, agentId, status: 'open' }),
      },
      {
        name: 'tenth page, all',
        run: () => listConversations({ ...scope, limit: PAGE, ...(deep ? { cursor: deep } : {}) }),
      },
    ];
    const measure = async () => {
      const out: number[] = [];
      for (const item of cases) {
        await item.run();
        const samples: number[] = [];
        for (let run = 0; run < RUNS; run += 1) samples.push((await timed(item.run)).ms);
        out.push(summarize(samples).p50);
      }
      return out;
    };
    // The counts for a user who has read one conversation in ten: as the route runs them now
    // (unread from conversations.last_visitor_message_at, read marks joined once), beside the
    // same counts with the unread flag as it was before migration 0031 (a probe of the messages
    // for each conversation and filter), on the same data in the same run.
    const userId = store.tenant.user.id;
    await sql`insert into conversation_reads (user_id, conversation_id, workspace_id, last_read_message_at)
      select ${userId}, id, workspace_id, now() + interval '1 minute' from conversations
      where workspace_id = ${workspaceId} and right(id, 1) = '0'`.execute(db);
    await sql`analyze conversation_reads`.execute(db);
    const counts = await compareCounts(db, workspaceId, userId);
    const indexed = await measure();
    await sql`drop index conversations_workspace_idx`.execute(db);
    await sql`analyze conversations`.execute(db);
    const bare = await measure();
    const rows = cases.map((item, i) => {
      const a = indexed[i] ?? 0;
      const b = bare[i] ?? 0;
      return [item.name, formatMs(a), formatMs(b), formatRatio(b / a)];
    });
    console.log(
      `\n${OPEN} open + ${CLOSED} closed conversations, pages of ${PAGE}, p50 of ${RUNS} runs, load average ${loadavg()[0]?.toFixed(1)}\n`,
    );
    console.log(markdownTable(['list', 'with the index ms', 'without it ms', 'without / with'], rows));
    console.log(
      `\nThe inbox counts (every filter's total and unread) for a user who read one conversation in ten:\n`,
    );
    console.log(
      markdownTable(
        ['counts', 'p50 ms', 'p95 ms', 'before / now (p50)'],
        [
          [
            'now (0031: newest visitor message on the conversation)',
            formatMs(counts.now.p50),
            formatMs(counts.now.p95),
            '1.00x',
          ],
          [
            'before 0031 (messages probed per conversation and filter)',
            formatMs(counts.before.p50),
            formatMs(counts.before.p95),
            formatRatio(counts.before.p50 / counts.now.p50),
          ],
        ],
      ),
    );
    return 0;
  } finally {
    await store.close();
  }
}

/** `countInbox` beside the pre-0031 unread flag, alternated run by run; both must agree. */
async function compareCounts(
  db: Parameters<typeof listConversations>[0]['db'],
  workspaceId: string,
  userId: string,
): Promise<{ now: ReturnType<typeof summarize>; before: ReturnType<typeof summarize> }> {
  const actor = { type: 'user', id: userId } as const;
  const unreadBefore = sql`exists (select 1 from messages um where um.conversation_id = c.id
    and um.role = 'visitor' and um.created_at > coalesce((select r.last_read_message_at
      from conversation_reads r where r.user_id = ${userId} and r.conversation_id = c.id), '-infinity'))`;
  const before = () =>
    db
      .selectFrom('conversations as c')
      .select(
        INBOX_FILTERS.flatMap((filter) => {
          const condition = filterCondition(filter, userId);
          return [
            sql<number>`count(*) filter (where ${condition})::int`.as(`${filter}_total`),
            sql<number>`count(*) filter (where ${condition} and ${unreadBefore})::int`.as(`${filter}_unread`),
          ];
        }),
      )
      .where('c.workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
  const now = () => countInbox({ db, workspaceId, actor });
  const old = (await before()) as Record<string, number>;
  const fresh = await now();
  for (const filter of INBOX_FILTERS) {
    const same =
      old[`${filter}_total`] === fresh[filter].total && old[`${filter}_unread`] === fresh[filter].unread;
    if (!same) throw new Error(`the two counts differ for ${filter}: ${JSON.stringify({ old, fresh })}`);
  }
  const samples = { now: [] as number[], before: [] as number[] };
  for (let run = 0; run < RUNS; run += 1) {
    samples.now.push((await timed(now)).ms);
    samples.before.push((await timed(before)).ms);
  }
  return { now: summarize(samples.now), before: summarize(samples.before) };
}

async function seed(
  db: Parameters<typeof listConversations>[0]['db'],
  workspaceId: string,
  agentId: string,
  status: 'open' | 'closed',
  n: number,
) {
  const ids = Array.from({ length: n }, () => newId());
  await sql`insert into visitors (id, workspace_id, agent_id, anon_id)
    select 'v' || u.id, ${workspaceId}, ${agentId}, 'anon-' || u.id from unnest(${ids}::text[]) as u(id)`.execute(
    db,
  );
  await sql`insert into conversations (id, workspace_id, agent_id, visitor_id, status, created_at, last_message_at)
    select u.id, ${workspaceId}, ${agentId}, 'v' || u.id, ${status},
      now() - (u.n * 37) * interval '1 second', now() - (u.n * 37) * interval '1 second'
    from unnest(${ids}::text[]) with ordinality as u(id, n)`.execute(db);
  await sql`insert into messages (id, workspace_id, conversation_id, role, content, created_at)
    select 'q' || u.id, ${workspaceId}, u.id, 'visitor', 'Where is my parcel?', now() from unnest(${ids}::text[]) as u(id)
    union all
    select 'a' || u.id, ${workspaceId}, u.id, 'assistant', 'It ships today.', now() from unnest(${ids}::text[]) as u(id)`.execute(
    db,
  );
}

process.exitCode = await main();
