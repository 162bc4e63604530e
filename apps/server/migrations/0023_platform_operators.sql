-- Platform operators and impersonation. The operator flag is `users.role = 'admin'` (0001; set
-- by the CLI only, `user:platform-admin`). An impersonation is an admin session of a workspace
-- member opened by an operator: it names the operator and the operator's own session (whose
-- secret is re-issued when the impersonation ends), carries the reason, and lasts a fixed time.
-- Audit records written during one name the operator as actor and the member in
-- `on_behalf_of_user_id`.

alter table admin_sessions
  add column impersonator_user_id text references users (id) on delete cascade,
  add column parent_session_id text references admin_sessions (id) on delete cascade,
  add column impersonation_reason text,
  add constraint admin_sessions_impersonation_check check (
    (impersonator_user_id is null and parent_session_id is null and impersonation_reason is null)
    or (impersonator_user_id is not null and parent_session_id is not null and impersonation_reason is not null)
  );
create index admin_sessions_parent_idx on admin_sessions (parent_session_id);

alter table audit_logs add column on_behalf_of_user_id text;
