-- The widget's welcome per agent (greeting, starter questions, translations; null: the defaults
-- for the site type) and the "answer from our team" mark kept with the message, so history
-- reloaded at init still says so.
-- Written to the PostgreSQL 15 subset; runs unchanged on PGlite.

alter table agents add column welcome jsonb;
alter table messages add column from_team boolean not null default false;
