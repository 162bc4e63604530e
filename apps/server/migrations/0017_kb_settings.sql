-- Public knowledge base look and sections: per workspace a title, a logo, a colour and the agent
-- whose widget the KB pages embed; per article a category (its section on the KB home).
-- Written to the PostgreSQL 15 subset; runs unchanged on PGlite.

alter table workspaces add column kb_title text not null default '';
alter table workspaces add column kb_logo_url text;
alter table workspaces add column kb_color text;
alter table workspaces add column kb_widget_agent_id text references agents (id) on delete set null;
alter table kb_articles add column category text not null default '';
