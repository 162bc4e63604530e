-- The settings screens: the audit log viewer filters by actor, action and target, newest first
-- (keyset on id), so each filter has an index that serves it in id order within a workspace;
-- and the webhook delivery log shows what the endpoint answered, as a bounded excerpt.
-- Written to the PostgreSQL 15 subset; runs unchanged on PGlite.

create index audit_logs_actor_idx on audit_logs (workspace_id, actor_id, id desc);
create index audit_logs_action_idx on audit_logs (workspace_id, action, id desc);
create index audit_logs_target_idx on audit_logs (workspace_id, target_type, target_id, id desc);

-- At most 2,000 characters of the last answer's body (the service truncates before storing).
alter table webhook_deliveries add column last_response_excerpt text;
