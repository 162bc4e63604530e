-- Keyset paging of the console's lists and the agents list's counts: each page is one index
-- scan in id order from the cursor, and each count an index scan of one agent's rows.

-- KB articles page by (workspace_id, id).
create index kb_articles_workspace_idx on kb_articles (workspace_id, id);

-- An agent's sources page by (workspace_id, agent_id, id); the old index is a prefix of this one.
create index sources_workspace_agent_id_idx on sources (workspace_id, agent_id, id);
drop index sources_workspace_idx;

-- Each listed source counts its documents (all, indexed, failed) by source_id.
create index documents_source_idx on documents (source_id, index_status);

-- The agents list shows when each agent last answered.
create index answer_turns_agent_idx on answer_turns (workspace_id, agent_id, created_at);
