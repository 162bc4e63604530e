import { type TAgent, type TSource, ZAgent, ZSource } from '@service/contract';
import { useEffect, useState } from 'preact/hooks';
import { z } from 'zod';
import { ApiError, api } from '../api';
import { FormMessage } from '../components/field';
import { BookIcon, GlobeIcon, PlusIcon, SlidersIcon } from '../components/icons';
import { agentSettingsPath, knowledgePath, PATHS } from '../paths';
import './agents.css';

type Row = { agent: TAgent; sources: TSource[] | null };
type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; rows: Row[] };

/** The workspace's agents: published or not, where the widget may load, how much it knows. */
export function Agents() {
  const [state, setState] = useState<State>({ kind: 'loading' });

  const load = async () => {
    try {
      const agents = await api('/agents', z.array(ZAgent));
      // Knowledge per agent; a list that fails leaves that agent's cell unknown, not the page broken.
      const rows = await Promise.all(
        agents.map(async (agent) => ({
          agent,
          sources: await api(`/agents/${encodeURIComponent(agent.id)}/sources`, z.array(ZSource)).catch(
            () => null,
          ),
        })),
      );
      setState({ kind: 'ready', rows });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      setState({
        kind: 'error',
        message: error instanceof Error ? error.message : 'Could not load the agents.',
      });
    }
  };
  useEffect(() => {
    void load();
  }, []);

  return (
    <section class="page" aria-labelledby="agents-title">
      <div class="page-head">
        <h1 id="agents-title">Agents</h1>
        {state.kind === 'ready' && state.rows.length > 0 ? (
          <a class="button primary" href={PATHS.newAgent}>
            <PlusIcon size={18} />
            <span>New agent</span>
          </a>
        ) : null}
      </div>
      {state.kind === 'ready' && state.rows.length === 0 ? (
        <div class="card empty-state">
          <h2>No agents yet</h2>
          <p class="muted">
            An agent answers your visitors from what you teach it. Create your first one: name it, give it
            your site’s address (it can read your pages from there), pick its colours, and paste one line of
            code on your site.
          </p>
          <div class="actions">
            <a class="button primary" href={PATHS.newAgent}>
              <PlusIcon size={18} />
              <span>Create your first agent</span>
            </a>
          </div>
        </div>
      ) : null}
      {state.kind === 'loading' ? (
        <p class="muted" aria-busy="true">
          Loading agents…
        </p>
      ) : null}
      {state.kind === 'error' ? <FormMessage kind="error">{state.message}</FormMessage> : null}
      {state.kind === 'ready' && state.rows.length > 0 ? <AgentList rows={state.rows} /> : null}
    </section>
  );
}

function AgentList(props: { rows: Row[] }) {
  return (
    <ul class="agent-list" aria-label="Agents">
      {props.rows.map(({ agent, sources }) => (
        <li key={agent.id} class="agent-card">
          <div class="agent-title">
            <h2>{agent.name}</h2>
            <span class={`badge ${agent.is_published ? 'ok' : 'draft'}`}>
              {agent.is_published ? 'Published' : 'Not published'}
            </span>
          </div>
          <dl class="agent-facts">
            <div>
              <dt>
                <GlobeIcon size={16} />
                <span>Allowed sites</span>
              </dt>
              <dd>
                {agent.allowed_origins.length === 0
                  ? 'None yet: the widget loads on no site.'
                  : agent.allowed_origins.join(', ')}
              </dd>
            </div>
            <div>
              <dt>
                <BookIcon size={16} />
                <span>Knowledge</span>
              </dt>
              <dd>{knowledgeSummary(sources)}</dd>
            </div>
          </dl>
          <div class="agent-links">
            <a class="button ghost" href={knowledgePath(agent.id)}>
              <BookIcon size={18} />
              <span>Manage knowledge</span>
              <span class="sr-only"> of {agent.name}</span>
            </a>
            <a class="button ghost" href={agentSettingsPath(agent.id)}>
              <SlidersIcon size={18} />
              <span>Settings</span>
              <span class="sr-only"> of {agent.name}</span>
            </a>
          </div>
        </li>
      ))}
    </ul>
  );
}

function knowledgeSummary(sources: TSource[] | null): string {
  if (sources === null) return 'Unknown (the sources could not be read).';
  if (sources.length === 0) return 'None yet: add pages, files or text for it to answer from.';
  const documents = sources.reduce((sum, source) => sum + source.document_count, 0);
  const failed = sources.filter((source) => source.status === 'failed').length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${plural(sources.length, 'source')}, ${plural(documents, 'document')}${failed > 0 ? `, ${failed} failed` : ''}`;
}
