-- Analytics roll-ups: per workspace, agent and UTC day, the counts the console charts read
-- instead of scanning conversations. A conversation and everything in it (messages, answer
-- turns, recorded questions, its rating) count on the UTC day it started.
--
-- How they stay correct: triggers mark the (workspace, day) a change touches as dirty in the
-- same transaction as the change; a read first recomputes the dirty days of its workspace
-- (services/analytics/analytics-rollup.ts), so "today" is always computed live and past days
-- are recomputed only when something in them changed.

create table analytics_dirty_days (
  -- No foreign key: a workspace's cascade delete fires the triggers below while its row is gone.
  workspace_id text not null,
  day date not null,
  primary key (workspace_id, day)
);

create table analytics_daily (
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  day date not null,
  conversations integer not null default 0,
  visitor_messages integer not null default 0,
  -- Answer turns the bot answered or tried to (an operator-held silent turn is not a question).
  questions integer not null default 0,
  -- Conversations with an answer and no human requested; those where a human was requested.
  bot_only integer not null default 0,
  handed_off integer not null default 0,
  -- Recorded questions with the reasons no_match or fallback.
  unanswered integer not null default 0,
  rated_up integer not null default 0,
  rated_down integer not null default 0,
  primary key (workspace_id, agent_id, day)
);

-- Each source shown as a citation: how many answers cited it, and the ratings of their conversations.
create table analytics_source_daily (
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  day date not null,
  -- The cited URL, or the title when the citation has no URL.
  source_key text not null,
  title text not null,
  url text,
  cited integer not null default 0,
  rated_up integer not null default 0,
  rated_down integer not null default 0,
  primary key (workspace_id, agent_id, day, source_key)
);

-- Visitor questions grouped by their normalised text (lower case, single spaces, no end punctuation).
create table analytics_question_daily (
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  day date not null,
  question_key text not null,
  question text not null,
  asks integer not null default 0,
  unanswered integer not null default 0,
  primary key (workspace_id, agent_id, day, question_key)
);

create function analytics_mark_day(ws text, at timestamptz) returns void
language sql as $$
  insert into analytics_dirty_days (workspace_id, day)
  select ws, (at at time zone 'UTC')::date where ws is not null and at is not null
  on conflict do nothing
$$;

create function analytics_mark_conversation() returns trigger
language plpgsql as $$
begin
  if tg_op <> 'INSERT' then perform analytics_mark_day(old.workspace_id, old.created_at); end if;
  if tg_op <> 'DELETE' then perform analytics_mark_day(new.workspace_id, new.created_at); end if;
  return null;
end $$;

-- A row inside a conversation (message, answer turn, recorded question) marks its conversation's day.
create function analytics_mark_child() returns trigger
language plpgsql as $$
declare
  started timestamptz;
  ws text;
begin
  if tg_op <> 'INSERT' then
    select c.workspace_id, c.created_at into ws, started from conversations c where c.id = old.conversation_id;
    perform analytics_mark_day(ws, started);
  end if;
  if tg_op <> 'DELETE' and new.conversation_id is not null then
    select c.workspace_id, c.created_at into ws, started from conversations c where c.id = new.conversation_id;
    perform analytics_mark_day(ws, started);
  end if;
  return null;
end $$;

create trigger analytics_conversations after insert or delete
  or update of workspace_id, agent_id, created_at, human_requested_at, satisfaction_rating
  on conversations for each row execute function analytics_mark_conversation();
create trigger analytics_messages after insert or delete
  or update of conversation_id, role, citations
  on messages for each row execute function analytics_mark_child();
create trigger analytics_answer_turns after insert or delete
  or update of conversation_id, question, outcome
  on answer_turns for each row execute function analytics_mark_child();
create trigger analytics_agent_questions after insert or delete
  or update of conversation_id, turn_id, reasons
  on agent_questions for each row execute function analytics_mark_child();

-- The days that already have conversations are computed on their first read.
insert into analytics_dirty_days (workspace_id, day)
select distinct workspace_id, (created_at at time zone 'UTC')::date from conversations
on conflict do nothing;
