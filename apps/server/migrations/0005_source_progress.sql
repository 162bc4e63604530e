-- What a source's last fetch did (pages or rows stored, skipped, removed, why it stopped, the
-- first failures), shown as `progress.last_run` by the admin API.

alter table sources add column progress jsonb not null default '{}';
