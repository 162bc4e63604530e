-- Reserved for the stream branch's migration: an empty placeholder so this branch's 0028 applies in
-- sequence. Drop it at merge when that branch brings its own 0025.
select 1;
