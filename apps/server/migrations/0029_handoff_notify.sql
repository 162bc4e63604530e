-- Never miss a handoff: a webhook delivers either the signed JSON event (json) or a Slack
-- incoming-webhook body (slack). The handoff mail needs no column: its delayed job is keyed
-- per handoff request and re-checks the conversation when it runs.
-- Written to the PostgreSQL 15 subset; runs unchanged on PGlite.

alter table webhooks add column format text not null default 'json'
  constraint webhooks_format_check check (format in ('json', 'slack'));
