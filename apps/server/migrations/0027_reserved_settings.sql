-- Reserved for the settings branch's migration: an empty placeholder so this branch's 0028 applies in
-- sequence. Drop it at merge when that branch brings its own 0027.
select 1;
