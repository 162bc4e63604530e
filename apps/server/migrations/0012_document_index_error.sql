-- Why a document's index job gave up, when the reason is known (more chunks than a document may
-- have, a job that ran out of time or was interrupted on its last attempt). The source's `error`
-- names the first such reason beside its count of failed documents.
alter table documents add column index_error text;
