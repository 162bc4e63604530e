import { type TAgent, ZAgent, ZSource } from '@service/contract';
import { useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { ApiError, api } from '../api';
import { AgentTabs } from '../components/agent-tabs';
import { FormMessage } from '../components/field';
import { LoadMore } from '../components/load-more';
import { usePagedList } from '../paged-list';
import { AddSource } from './knowledge-add';
import { BUSY, messageOf, POLL_MS } from './knowledge-shared';
import { SourceTable } from './knowledge-sources';
import { Uploads } from './knowledge-uploads';
import './knowledge.css';
import { can } from '../session';

/** An agent's knowledge: its sources with live progress, adding one, uploads, re-index and delete. */
export function Knowledge() {
  const { params } = useRoute();
  const agentId = params.id ?? '';
  const base = `/agents/${encodeURIComponent(agentId)}`;
  const [agent, setAgent] = useState<TAgent | null>(null);
  const list = usePagedList(`${base}/sources?order=desc`, ZSource, 'Could not load the sources.');
  const sources = list.items;
  const loadSources = list.reload;
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    api(base, ZAgent)
      .then(setAgent)
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 401) return;
        setLoadError(messageOf(error, 'Could not load the agent.'));
      });
    void loadSources();
  }, [base, loadSources]);

  // Live progress: while any source is queued, fetching or indexing, read the list again.
  const isBusy = sources?.some((source) => BUSY.has(source.status)) ?? false;
  useEffect(() => {
    if (!isBusy) return;
    const timer = setTimeout(() => void loadSources(), POLL_MS);
    return () => clearTimeout(timer);
  }, [isBusy, sources]);

  return (
    <section class="page knowledge" aria-labelledby="knowledge-title">
      <AgentTabs agentId={agentId} agentName={agent?.name ?? null} />
      <h1 id="knowledge-title">Knowledge</h1>
      <p class="muted">
        What the agent answers from: your site’s pages, a sitemap, single pages, pasted text and files.
      </p>
      {loadError ? <FormMessage kind="error">{loadError}</FormMessage> : null}
      {list.error ? <FormMessage kind="error">{list.error}</FormMessage> : null}
      <SourceTable sources={sources} onChanged={loadSources} onUpdated={list.replace} />
      <LoadMore list={list} noun="sources" />
      {/* Adding a source configures the agent; uploading is knowledge editing (docs/roles.md). */}
      {can('workspace.configure') ? <AddSource base={base} onAdded={loadSources} /> : null}
      {can('knowledge.edit') ? <Uploads base={base} sources={sources} onUploaded={loadSources} /> : null}
    </section>
  );
}
