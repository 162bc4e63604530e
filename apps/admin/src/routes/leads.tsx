import { LEAD_SEARCH_MAX, type TAdminLead, type TAgent, ZAdminLead, ZAgent } from '@service/contract';
import { useEffect, useState } from 'preact/hooks';
import { z } from 'zod';
import { API_BASE, api } from '../api';
import { FormMessage } from '../components/field';
import { LoadMore } from '../components/load-more';
import { dateText } from '../date-text';
import { usePagedList } from '../paged-list';
import { type LeadFilterInput, leadQuery } from './lead-filter-query';
import './access.css';
import './leads.css';

const NO_FILTERS: LeadFilterInput = { q: '', agentId: '', from: '', to: '' };

/** The leads the widget captured: search, agent and date filters, the site push, CSV export. */
export function Leads() {
  const [draft, setDraft] = useState<LeadFilterInput>(NO_FILTERS);
  const [applied, setApplied] = useState<LeadFilterInput>(NO_FILTERS);
  const [agents, setAgents] = useState<TAgent[]>([]);
  const query = leadQuery(applied);
  const list = usePagedList(`/leads${query ? `?${query}` : ''}`, ZAdminLead, 'Could not load the leads.');
  const load = list.reload;
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    api('/agents?limit=100', z.array(ZAgent))
      .then(setAgents)
      .catch(() => setAgents([]));
  }, []);
  const agentName = (id: string) => agents.find((agent) => agent.id === id)?.name ?? 'Deleted agent';
  const set = (field: keyof LeadFilterInput) => (value: string) =>
    setDraft((current) => ({ ...current, [field]: value }));
  const isFiltered = query !== '';
  const leads = list.items;

  return (
    <section class="page" aria-labelledby="leads-title">
      <div class="page-head">
        <h1 id="leads-title">Leads</h1>
        <a class="button ghost" href={`${API_BASE}/leads/export${query ? `?${query}` : ''}`} download>
          Export CSV
        </a>
      </div>
      <p class="muted">
        The contact details visitors left in the chat, newest first. The export holds the leads the filters
        show.
      </p>
      <form
        class="card lead-filters"
        aria-label="Filter leads"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied(draft);
        }}
      >
        <div class="field">
          <label for="lead-q">Search</label>
          <input
            id="lead-q"
            type="search"
            maxLength={LEAD_SEARCH_MAX}
            placeholder="Email, name or phone"
            value={draft.q}
            onInput={(event) => set('q')(event.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="lead-agent">Agent</label>
          <select
            id="lead-agent"
            value={draft.agentId}
            onChange={(event) => set('agentId')(event.currentTarget.value)}
          >
            <option value="">All agents</option>
            {agents.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="lead-from">From</label>
          <input
            id="lead-from"
            type="date"
            value={draft.from}
            onInput={(event) => set('from')(event.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="lead-to">To (inclusive)</label>
          <input
            id="lead-to"
            type="date"
            value={draft.to}
            onInput={(event) => set('to')(event.currentTarget.value)}
          />
        </div>
        <div class="actions">
          <button type="submit" class="button primary">
            Filter
          </button>
          {isFiltered ? (
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
          ) : null}
        </div>
      </form>
      {leads === null && list.error === null ? (
        <p class="muted" aria-busy="true">
          Loading leads…
        </p>
      ) : null}
      {list.error ? <FormMessage kind="error">{list.error}</FormMessage> : null}
      {leads?.length === 0 ? (
        <div class="card empty-state">
          <h2>{isFiltered ? 'No lead matches' : 'No leads yet'}</h2>
          <p class="muted">
            {isFiltered
              ? 'Try other words or a wider date range.'
              : 'When a visitor leaves an email in the chat, it appears here.'}
          </p>
        </div>
      ) : null}
      {leads && leads.length > 0 ? (
        <ul class="row-list" aria-label="Leads">
          {leads.map((lead) => (
            <LeadRow key={lead.id} lead={lead} agentName={agentName(lead.agent_id)} />
          ))}
        </ul>
      ) : null}
      <LoadMore list={list} noun="leads" />
    </section>
  );
}

function LeadRow(props: { lead: TAdminLead; agentName: string }) {
  const { lead } = props;
  return (
    <li class="row-card">
      <div class="row-title">
        <h2>{lead.email}</h2>
        <PushBadge lead={lead} />
      </div>
      <dl class="row-facts">
        <div>
          <dt>Name</dt>
          <dd>{lead.name || '—'}</dd>
        </div>
        <div>
          <dt>Phone</dt>
          <dd>{lead.phone || '—'}</dd>
        </div>
        <div>
          <dt>Agent</dt>
          <dd>{props.agentName}</dd>
        </div>
        <div>
          <dt>Captured</dt>
          <dd>{dateText(lead.created_at)}</dd>
        </div>
        <div>
          <dt>Site push</dt>
          <dd>{pushText(lead)}</dd>
        </div>
      </dl>
      {lead.conversation_id ? (
        <div class="actions">
          <a class="button ghost" href={`/admin/inbox/${encodeURIComponent(lead.conversation_id)}`}>
            Open the conversation<span class="visually-hidden"> with {lead.email}</span>
          </a>
        </div>
      ) : null}
    </li>
  );
}

/** What happened when the lead was pushed to the site's customer records. */
function pushText(lead: TAdminLead): string {
  if (lead.push_error) return `Failed: ${lead.push_error}`;
  if (lead.pushed_at) {
    return lead.site_user_id === null
      ? `Sent ${dateText(lead.pushed_at)}`
      : `Sent ${dateText(lead.pushed_at)} (site user ${lead.site_user_id})`;
  }
  return 'Not sent (no site connected, or waiting)';
}

function PushBadge(props: { lead: TAdminLead }) {
  if (props.lead.push_error) return <span class="badge error">Push failed</span>;
  if (props.lead.pushed_at) return <span class="badge ok">On the site</span>;
  return null;
}
