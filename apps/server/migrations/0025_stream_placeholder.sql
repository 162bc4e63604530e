-- Placeholder so the inbox branch migrates without a gap: the stream branch owns 0025 and its
-- file replaces this one at merge (drop this file then).
select 1;
