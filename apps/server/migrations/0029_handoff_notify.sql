-- Never miss a handoff: a webhook delivers either the signed JSON event (json) or a Slack
-- incoming-webhook body (slack); and the delayed "nobody claimed it" mail goes out once per
-- handoff request.
-- Written to the PostgreSQL 15 subset; runs unchanged on PGlite.

alter table webhooks add column format text not null default 'json'
  constraint webhooks_format_check check (format in ('json', 'slack'));

-- When the "nobody claimed it" mail went out for the conversation's current handoff request
-- (set by the handoff-mail job in the same transaction as the mails): a second run of the job,
-- or a second job for the same request, finds it set and mails nobody.
alter table conversations add column handoff_mailed_at timestamptz;
