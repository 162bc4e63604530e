import { type TAuditLog, ZAuditLog } from '@service/contract';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { z } from 'zod';
import { ApiError, apiPage } from '../api';
import { FormMessage } from '../components/field';
import { dateText } from '../date-text';
import { dayStart } from './lead-filter-query';
import './access.css';
import './leads.css';

const ZAuditPage = z.object({
  data: z.array(ZAuditLog),
  meta: z.object({ next_before: z.string().nullable() }),
});
const PAGE = 50;
const FILTERS = [
  { key: 'actor_id', label: 'Actor id', max: 64 },
  { key: 'action', label: 'Action', max: 100, placeholder: 'agent.updated' },
  { key: 'target_type', label: 'Target type', max: 64, placeholder: 'agent' },
  { key: 'target_id', label: 'Target id', max: 64 },
] as const;
type Filters = Record<(typeof FILTERS)[number]['key'] | 'from' | 'to', string>;
const NO_FILTERS: Filters = { actor_id: '', action: '', target_type: '', target_id: '', from: '', to: '' };

/** The query string of the audit log for the filters (dates are the reader's days; `to` inclusive). */
function auditQuery(filters: Filters): URLSearchParams {
  const query = new URLSearchParams({ limit: String(PAGE) });
  for (const { key } of FILTERS) if (filters[key].trim()) query.set(key, filters[key].trim());
  const from = dayStart(filters.from);
  if (from) query.set('from', from);
  const to = dayStart(filters.to, 1);
  if (to) query.set('to', to);
  return query;
}

/** The workspace's audit log: who did what to which target, filtered, newest first. */
export function AuditLog() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [applied, setApplied] = useState<Filters>(NO_FILTERS);
  const [rows, setRows] = useState<TAuditLog[] | null>(null);
  const [before, setBefore] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string[]>>({});

  const read = useCallback(
    async (after: string | null) => {
      const query = auditQuery(applied);
      if (after) query.set('before', after);
      try {
        const page = await apiPage(`/audit-logs?${query}`, ZAuditPage);
        setRows((current) => (after ? [...(current ?? []), ...page.data] : page.data));
        setBefore(page.meta.next_before);
        setError(null);
        setErrors({});
      } catch (caught) {
        if (caught instanceof ApiError && caught.status === 401) return;
        if (caught instanceof ApiError) setErrors(caught.errors);
        setError(caught instanceof Error ? caught.message : 'Could not load the audit log.');
        setRows([]);
      }
    },
    [applied],
  );
  useEffect(() => {
    void read(null);
  }, [read]);

  return (
    <section class="page" aria-labelledby="audit-title">
      <div class="page-head">
        <h1 id="audit-title">Audit log</h1>
      </div>
      <p class="muted">Privileged changes in this workspace, newest first.</p>
      <form
        class="card lead-filters"
        aria-label="Filter the audit log"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied(draft);
        }}
      >
        {FILTERS.map((filter) => (
          <div class="field" key={filter.key}>
            <label for={`audit-${filter.key}`}>{filter.label}</label>
            <input
              id={`audit-${filter.key}`}
              type="text"
              maxLength={filter.max}
              placeholder={'placeholder' in filter ? filter.placeholder : undefined}
              value={draft[filter.key]}
              onInput={(event) => setDraft({ ...draft, [filter.key]: event.currentTarget.value })}
            />
          </div>
        ))}
        <div class="field">
          <label for="audit-from">From</label>
          <input
            id="audit-from"
            type="date"
            value={draft.from}
            onInput={(event) => setDraft({ ...draft, from: event.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for="audit-to">To (inclusive)</label>
          <input
            id="audit-to"
            type="date"
            value={draft.to}
            onInput={(event) => setDraft({ ...draft, to: event.currentTarget.value })}
          />
        </div>
        <div class="actions">
          <button type="submit" class="button primary">
            Filter
          </button>
          <button
            type="button"
            class="button ghost"
            onClick={() => {
              setDraft(NO_FILTERS);
              setApplied(NO_FILTERS);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      {error ? (
        <FormMessage kind="error">
          {Object.entries(errors)
            .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
            .join(' ') || error}
        </FormMessage>
      ) : null}
      {rows === null ? (
        <p class="muted" aria-busy="true">
          Loading the audit log…
        </p>
      ) : null}
      {rows?.length === 0 && !error ? (
        <div class="card empty-state">
          <h2>No record matches</h2>
        </div>
      ) : null}
      {rows && rows.length > 0 ? (
        <ul class="row-list" aria-label="Audit records">
          {rows.map((row) => (
            <AuditRow key={row.id} row={row} />
          ))}
        </ul>
      ) : null}
      {before ? (
        <div class="load-more">
          <button type="button" class="button ghost" onClick={() => void read(before)}>
            Load older records
          </button>
        </div>
      ) : null}
    </section>
  );
}

function AuditRow(props: { row: TAuditLog }) {
  const { row } = props;
  const metadata = JSON.stringify(row.metadata);
  return (
    <li class="row-card">
      <div class="row-title">
        <h2>
          <code>{row.action}</code>
        </h2>
        {row.on_behalf_of ? <span class="badge error">Operator viewing as a member</span> : null}
      </div>
      <dl class="row-facts">
        <div>
          <dt>When</dt>
          <dd>{dateText(row.created_at)}</dd>
        </div>
        <div>
          <dt>Actor</dt>
          <dd>
            {row.actor_type} <code>{row.actor_id ?? '—'}</code>
          </dd>
        </div>
        {row.on_behalf_of ? (
          <div>
            <dt>On behalf of</dt>
            <dd>
              <code>{row.on_behalf_of}</code>
            </dd>
          </div>
        ) : null}
        <div>
          <dt>Target</dt>
          <dd>{row.target_type ? `${row.target_type} ${row.target_id ?? ''}` : '—'}</dd>
        </div>
        {metadata === '{}' ? null : (
          <div>
            <dt>Details</dt>
            <dd class="audit-details">
              <code>{metadata.length > 300 ? `${metadata.slice(0, 300)}…` : metadata}</code>
            </dd>
          </div>
        )}
      </dl>
    </li>
  );
}
