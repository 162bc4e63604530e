import { type RawBuilder, sql } from 'kysely';

// The analytics numbers as SQL over the base tables (conversations, messages, answer_turns,
// agent_questions), for the conversations a filter picks. The roll-up refresh stores their
// result per day; the full scan (tests, bench) reads them directly: one definition for both.

/** Selects conversations: a condition on `c` (alias of conversations) that includes the workspace. */
export type ConversationFilter = RawBuilder<unknown>;

/** The conversations of a workspace started in [lo, hi) (timestamps), optionally one agent's only. */
export function conversationsBetween(
  workspaceId: string,
  lo: string,
  hi: string,
  agentId?: string,
): ConversationFilter {
  return sql`c.workspace_id = ${workspaceId}
    and c.created_at >= ${lo}::timestamptz and c.created_at < ${hi}::timestamptz
    ${agentId === undefined ? sql`` : sql`and c.agent_id = ${agentId}`}`;
}

/** The conversations of a workspace started on one of `days` (UTC, `YYYY-MM-DD`, sorted). */
export function conversationsOnDays(workspaceId: string, days: readonly string[]): ConversationFilter {
  const lo = `${days[0]}T00:00:00Z`;
  const hi = `${nextDay(days[days.length - 1] ?? '1970-01-01')}T00:00:00Z`;
  return sql`${conversationsBetween(workspaceId, lo, hi)}
    and (c.created_at at time zone 'UTC')::date = any(${[...days]}::date[])`;
}

/** The UTC day after `day` (`YYYY-MM-DD`). */
export function nextDay(day: string): string {
  const at = new Date(`${day}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + 1);
  return at.toISOString().slice(0, 10);
}

function conversationsCte(filter: ConversationFilter): RawBuilder<unknown> {
  return sql`conv as (
    select c.id, c.agent_id, (c.created_at at time zone 'UTC')::date as day,
      (c.human_requested_at is not null or c.claimed_at is not null) as handed_off,
      coalesce(c.satisfaction_rating, 0) as rating
    from conversations c where ${filter}
  )`;
}

/** Per agent and day: the counts of `analytics_daily` (columns agent_id, day, then the counts). */
export function dailyCounts(filter: ConversationFilter): RawBuilder<unknown> {
  return sql`with ${conversationsCte(filter)},
    vm as (
      select m.conversation_id, count(*) as n from messages m join conv on conv.id = m.conversation_id
      where m.role = 'visitor' group by m.conversation_id
    ),
    tt as (
      select t.conversation_id, count(*) filter (where t.outcome <> 'silent') as n,
        bool_or(t.outcome = 'answered') as answered
      from answer_turns t join conv on conv.id = t.conversation_id group by t.conversation_id
    ),
    uq as (
      select q.conversation_id, count(*) as n from agent_questions q join conv on conv.id = q.conversation_id
      where q.reasons && array['no_match', 'fallback']::text[] group by q.conversation_id
    )
    select conv.agent_id, conv.day,
      count(*)::int as conversations,
      coalesce(sum(vm.n), 0)::int as visitor_messages,
      coalesce(sum(tt.n), 0)::int as questions,
      (count(*) filter (where tt.answered and not conv.handed_off))::int as bot_only,
      (count(*) filter (where conv.handed_off))::int as handed_off,
      coalesce(sum(uq.n), 0)::int as unanswered,
      (count(*) filter (where conv.rating > 0))::int as rated_up,
      (count(*) filter (where conv.rating < 0))::int as rated_down
    from conv
    left join vm on vm.conversation_id = conv.id
    left join tt on tt.conversation_id = conv.id
    left join uq on uq.conversation_id = conv.id
    group by conv.agent_id, conv.day`;
}

/**
 * Per agent, day and cited source (its URL, or its title without one): the answers citing it
 * and how many of them were in up- and down-rated conversations.
 */
export function sourceCounts(filter: ConversationFilter): RawBuilder<unknown> {
  return sql`with ${conversationsCte(filter)},
    cited as (
      select conv.agent_id, conv.day, conv.rating, m.id as message_id,
        left(coalesce(nullif(e.cit ->> 'url', ''), nullif(e.cit ->> 'title', ''), ''), 500) as source_key,
        e.cit ->> 'title' as title, nullif(e.cit ->> 'url', '') as url
      from conv
      join messages m on m.conversation_id = conv.id and m.role = 'assistant'
      cross join lateral jsonb_array_elements(
        case when jsonb_typeof(m.citations) = 'array' then m.citations else '[]'::jsonb end
      ) as e(cit)
      where jsonb_typeof(e.cit) = 'object'
    )
    select agent_id, day, source_key,
      left(coalesce(max(title), source_key), 300) as title, left(max(url), 2000) as url,
      count(distinct message_id)::int as cited,
      (count(distinct message_id) filter (where rating > 0))::int as rated_up,
      (count(distinct message_id) filter (where rating < 0))::int as rated_down
    from cited where source_key <> ''
    group by agent_id, day, source_key`;
}

/** A question's grouping key: lower case, single spaces, no punctuation or spaces at the end. */
const questionKey = sql`left(coalesce(
    nullif(regexp_replace(regexp_replace(lower(btrim(t.question)), '[[:space:]]+', ' ', 'g'), '[[:space:][:punct:]]+$', ''), ''),
    lower(btrim(t.question))
  ), 200)`;

/** Per agent, day and grouped question: how often it was asked, how often left unanswered. */
export function questionCounts(filter: ConversationFilter): RawBuilder<unknown> {
  return sql`with ${conversationsCte(filter)}
    select conv.agent_id, conv.day, ${questionKey} as question_key,
      min(left(btrim(t.question), 300)) as question,
      count(*)::int as asks,
      (count(*) filter (where exists (
        select 1 from agent_questions q
        where q.turn_id = t.id and q.reasons && array['no_match', 'fallback']::text[]
      )))::int as unanswered
    from conv join answer_turns t on t.conversation_id = conv.id and t.outcome <> 'silent'
    group by conv.agent_id, conv.day, question_key`;
}
