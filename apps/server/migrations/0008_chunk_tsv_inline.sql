-- Keep each chunk's full-text vector in its row. Search reads the vector of every chunk a word
-- matches (to rank it), thousands for a common word, and a vector stored out of line in the
-- TOAST table cost one more lookup per chunk. `main` keeps it inline (compressed first if the
-- row is large); the chunk's text, read only for the few hits shown, still moves out of line.
alter table chunks alter column tsv set storage main;

-- Vectors written before this change stay where they are until rewritten: rewrite them now.
update chunks set tsv = tsv || ''::tsvector;
