import {
  INBOX_FILTERS,
  INBOX_SEARCH_MAX,
  listPage,
  type TInboxConversation,
  type TInboxCounts,
  type TInboxFilter,
  ZAgentListItem,
  ZInboxConversation,
  ZInboxCounts,
} from '@service/contract';
import type { TargetedEvent } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, apiPage } from '../api';
import { FormMessage } from '../components/field';
import { dateText } from '../date-text';
import { AlertsSwitch, refreshHandoffCount } from '../handoff-alerts';
import { useLive } from '../live';
import { usePagedList } from '../paged-list';
import { inboxPath } from '../paths';
import { InboxConversation } from './inbox-conversation';
import { SelectField } from './select-field';
import './inbox.css';

const FILTER_TEXT: Record<TInboxFilter, string> = {
  waiting: 'Waiting',
  open: 'Open',
  mine: 'Mine',
  closed: 'Closed',
  all: 'All',
};
const STATUS_TEXT = {
  open: 'Bot answering',
  waiting: 'Waiting for a human',
  claimed: 'Claimed',
  closed: 'Closed',
};
/** Live events come in bursts (a message, then its answer): one reload after a short calm. */
const LIVE_DEBOUNCE_MS = 400;

function filterOf(value: string | undefined): TInboxFilter {
  return INBOX_FILTERS.find((filter) => filter === value) ?? 'waiting';
}

/**
 * The operator inbox: filters as tabs with the caller's unread counts, an agent select and a
 * search over what visitors wrote; the list beside the open conversation on a wide screen, one
 * pane at a time on a phone. Live events refresh both (debounced); nothing polls.
 */
export function Inbox() {
  const { params } = useRoute();
  const location = useLocation();
  const selectedId = params.id ?? null;
  const filter = filterOf(location.query.filter);
  const agentId = location.query.agent ?? '';
  const search = location.query.q ?? '';
  const [draft, setDraft] = useState(search);
  const [counts, setCounts] = useState<TInboxCounts | null>(null);
  const [agents, setAgents] = useState<Array<{ id: string; name: string }>>([]);
  const [liveTick, setLiveTick] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const listQuery = useMemo(() => {
    const query = new URLSearchParams({ filter });
    if (agentId) query.set('agent_id', agentId);
    if (search) query.set('q', search);
    return query.toString();
  }, [filter, agentId, search]);
  // The address keeps the filters, so a reload or a shared link shows the same list.
  const keptQuery = useMemo(() => {
    const query = new URLSearchParams();
    if (filter !== 'waiting') query.set('filter', filter);
    if (agentId) query.set('agent', agentId);
    if (search) query.set('q', search);
    return query.toString();
  }, [filter, agentId, search]);
  const list = usePagedList(`/conversations?${listQuery}`, ZInboxConversation, 'Could not load the inbox.');

  const loadCounts = async () => {
    try {
      setCounts(
        await api(
          `/conversations/counts${agentId ? `?agent_id=${encodeURIComponent(agentId)}` : ''}`,
          ZInboxCounts,
        ),
      );
    } catch {
      // The tabs keep their last counts.
    }
  };
  useEffect(() => {
    void list.reload();
    void loadCounts();
  }, [listQuery]);
  useEffect(() => {
    apiPage('/agents?limit=100', listPage(ZAgentListItem))
      .then((page) => setAgents(page.data.map((row) => ({ id: row.id, name: row.name }))))
      .catch(() => setAgents([]));
  }, []);
  useEffect(() => () => clearTimeout(timer.current), []);

  useLive(
    [
      'conversation.created',
      'conversation.updated',
      'conversation.handoff_requested',
      'message.created',
      'note.created',
      'lead.created',
      'stream.reset',
    ],
    () => {
      clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        void list.reload();
        void loadCounts();
        setLiveTick((tick) => tick + 1);
      }, LIVE_DEBOUNCE_MS);
    },
  );

  const go = (next: { filter?: TInboxFilter; agent?: string; q?: string }) => {
    const query = new URLSearchParams();
    const nextFilter = next.filter ?? filter;
    const nextAgent = next.agent ?? agentId;
    const nextQ = next.q ?? search;
    if (nextFilter !== 'waiting') query.set('filter', nextFilter);
    if (nextAgent) query.set('agent', nextAgent);
    if (nextQ) query.set('q', nextQ);
    location.route(inboxPath(selectedId ?? undefined, query.toString()), true);
  };
  const onSearch = (event: TargetedEvent<HTMLFormElement>) => {
    event.preventDefault();
    go({ q: draft.trim() });
  };
  const onChanged = () => {
    void list.reload();
    void loadCounts();
    void refreshHandoffCount();
  };

  return (
    <section class={`page inbox${selectedId ? ' has-selection' : ''}`} aria-labelledby="inbox-title">
      <div class="inbox-list-pane">
        <h1 id="inbox-title">Inbox</h1>
        <AlertsSwitch where="page" />
        <fieldset class="inbox-tabs">
          <legend class="sr-only">Filter conversations</legend>
          {INBOX_FILTERS.map((name) => {
            const count = counts?.[name];
            return (
              <button
                key={name}
                type="button"
                class="inbox-tab"
                aria-pressed={filter === name}
                onClick={() => go({ filter: name })}
              >
                {FILTER_TEXT[name]}
                {count && count.unread > 0 ? (
                  <span class="inbox-unread">
                    {count.unread}
                    <span class="sr-only"> unread</span>
                  </span>
                ) : null}
              </button>
            );
          })}
        </fieldset>
        <div class="inbox-filters">
          <SelectField
            name="agent"
            label="Agent"
            value={agentId}
            options={[
              { value: '', label: 'All agents' },
              ...agents.map((a) => ({ value: a.id, label: a.name })),
            ]}
            onChange={(value) => go({ agent: value })}
          />
          <form class="inbox-search" onSubmit={onSearch}>
            <label for="inbox-q">Search what visitors wrote</label>
            <div class="inbox-search-row">
              <input
                id="inbox-q"
                type="search"
                maxLength={INBOX_SEARCH_MAX}
                value={draft}
                onInput={(event) => setDraft(event.currentTarget.value)}
              />
              <button type="submit" class="button ghost small">
                Search
              </button>
            </div>
          </form>
        </div>
        {list.error ? <FormMessage kind="error">{list.error}</FormMessage> : null}
        {list.items === null && list.error === null ? (
          <p class="muted" aria-busy="true">
            Loading conversations…
          </p>
        ) : null}
        {list.items?.length === 0 ? (
          <p class="muted inbox-empty">
            {search
              ? 'No conversation has a visitor message matching this search.'
              : filter === 'waiting'
                ? 'Nobody is waiting for a human right now.'
                : 'No conversations here.'}
          </p>
        ) : null}
        {list.items && list.items.length > 0 ? (
          <ul class="inbox-list" aria-label="Conversations">
            {list.items.map((row) => (
              <ConversationRow
                key={row.id}
                row={row}
                isSelected={row.id === selectedId}
                href={inboxPath(row.id, keptQuery)}
                agents={agents}
              />
            ))}
          </ul>
        ) : null}
        {list.hasMore ? (
          <button
            type="button"
            class="button ghost"
            disabled={list.isLoadingMore}
            onClick={() => void list.loadMore()}
          >
            {list.isLoadingMore ? 'Loading…' : 'Load more conversations'}
          </button>
        ) : null}
      </div>
      <div class="inbox-detail-pane">
        {selectedId ? (
          <InboxConversation
            key={selectedId}
            conversationId={selectedId}
            backHref={inboxPath(undefined, keptQuery)}
            liveTick={liveTick}
            onChanged={onChanged}
          />
        ) : (
          <p class="muted inbox-pick">Pick a conversation to read it and answer.</p>
        )}
      </div>
    </section>
  );
}

function ConversationRow(props: {
  row: TInboxConversation;
  isSelected: boolean;
  href: string;
  agents: Array<{ id: string; name: string }>;
}) {
  const { row } = props;
  const agent = props.agents.find((a) => a.id === row.agent_id)?.name;
  return (
    <li class={`inbox-row${row.unread ? ' unread' : ''}`}>
      <a href={props.href} aria-current={props.isSelected ? 'true' : undefined}>
        <span class="inbox-row-top">
          <span class={`badge status-${row.status}`}>{STATUS_TEXT[row.status]}</span>
          {row.unread ? <span class="inbox-dot">New</span> : null}
          <span class="muted inbox-when">{dateText(row.last_message_at ?? row.created_at)}</span>
        </span>
        <span class="inbox-preview">{row.last_message?.preview ?? 'No messages yet'}</span>
        <span class="muted inbox-meta">
          {agent ?? 'Agent'} · {row.message_count} {row.message_count === 1 ? 'message' : 'messages'}
          {row.visitor_typing ? ' · typing…' : ''}
        </span>
      </a>
    </li>
  );
}
