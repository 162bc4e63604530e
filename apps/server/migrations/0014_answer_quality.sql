-- Answer corrections (an operator's answer to a question, given before retrieval to a later
-- question close enough to it) and the agent's questions that went wrong (nothing found, the
-- "I don't know" reply, a handoff, a rating down), each kept with the chunks behind its answer.

create table answer_corrections (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  question text not null,
  answer text not null,
  -- typed: written by an operator; message: from an answer of a conversation; question: from
  -- a recorded agent question.
  source text not null check (source in ('typed', 'message', 'question')),
  source_message_id text references messages (id) on delete set null,
  source_question_id text,
  use_count integer not null default 0,
  last_used_at timestamptz,
  created_by text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- Lists page by (workspace_id, agent_id, id); matching reads one agent's corrections.
create index answer_corrections_agent_idx on answer_corrections (workspace_id, agent_id, id);

create table agent_questions (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  agent_id text not null references agents (id) on delete cascade,
  conversation_id text references conversations (id) on delete cascade,
  turn_id text references answer_turns (id) on delete set null,
  question_message_id text references messages (id) on delete set null,
  answer_message_id text references messages (id) on delete set null,
  question text not null,
  answer text not null default '',
  -- Any of no_match, fallback, handoff, rated_down.
  reasons text[] not null,
  -- [{chunk_id, score}] behind the answer, as the turn stored them.
  retrieved jsonb not null default '[]',
  status text not null default 'open' check (status in ('open', 'resolved')),
  resolution text check (resolution in ('correction', 'kb_article', 'dismissed')),
  resolution_id text,
  resolved_by text,
  resolved_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index agent_questions_agent_idx on agent_questions (workspace_id, agent_id, id);
create index agent_questions_status_idx on agent_questions (workspace_id, agent_id, status, id);
-- One record per answer turn: a later reason (a rating down) joins the record's reasons.
create unique index agent_questions_turn_key on agent_questions (turn_id);
