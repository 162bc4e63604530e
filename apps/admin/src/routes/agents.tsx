import { type TAgentKnowledge, type TAgentListItem, ZAgentListItem } from '@service/contract';
import { useEffect } from 'preact/hooks';
import { FormMessage } from '../components/field';
import { BookIcon, ChatIcon, GlobeIcon, PlusIcon, SlidersIcon } from '../components/icons';
import { LoadMore } from '../components/load-more';
import { dateText } from '../date-text';
import { usePagedList } from '../paged-list';
import { agentSettingsPath, knowledgePath, PATHS } from '../paths';
import { can } from '../session';
import './agents.css';

/** The workspace's agents: published or not, where the widget may load, how much it knows. */
export function Agents() {
  // One request a page: each agent comes with its knowledge counts and last answer.
  const list = usePagedList('/agents', ZAgentListItem, 'Could not load the agents.');
  const { reload } = list;
  useEffect(() => {
    void reload();
  }, [reload]);
  const agents = list.items;
  const canConfigure = can('workspace.configure');

  return (
    <section class="page" aria-labelledby="agents-title">
      <div class="page-head">
        <h1 id="agents-title">Agents</h1>
        {agents && agents.length > 0 && canConfigure ? (
          <a class="button primary" href={PATHS.newAgent}>
            <PlusIcon size={18} />
            <span>New agent</span>
          </a>
        ) : null}
      </div>
      {agents?.length === 0 ? (
        <div class="card empty-state">
          <h2>No agents yet</h2>
          <p class="muted">
            An agent answers your visitors from what you teach it. Create your first one: name it, give it
            your site’s address (it can read your pages from there), pick its colours, and paste one line of
            code on your site.
          </p>
          {canConfigure ? (
            <div class="actions">
              <a class="button primary" href={PATHS.newAgent}>
                <PlusIcon size={18} />
                <span>Create your first agent</span>
              </a>
            </div>
          ) : (
            <p class="muted">An owner or admin of this workspace creates them; they will show here.</p>
          )}
        </div>
      ) : null}
      {agents === null && list.error === null ? (
        <p class="muted" aria-busy="true">
          Loading agents…
        </p>
      ) : null}
      {list.error ? <FormMessage kind="error">{list.error}</FormMessage> : null}
      {agents && agents.length > 0 ? <AgentList agents={agents} /> : null}
      <LoadMore list={list} noun="agents" />
    </section>
  );
}

function AgentList(props: { agents: TAgentListItem[] }) {
  const canConfigure = can('workspace.configure');
  return (
    <ul class="agent-list" aria-label="Agents">
      {props.agents.map((agent) => (
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
              <dd>{knowledgeSummary(agent.knowledge)}</dd>
            </div>
            <div>
              <dt>
                <ChatIcon size={16} />
                <span>Last answer</span>
              </dt>
              <dd>{dateText(agent.last_answer_at, 'Not yet')}</dd>
            </div>
          </dl>
          <div class="agent-links">
            <a class="button ghost" href={knowledgePath(agent.id)}>
              <BookIcon size={18} />
              <span>Manage knowledge</span>
              <span class="sr-only"> of {agent.name}</span>
            </a>
            {canConfigure ? (
              <a class="button ghost" href={agentSettingsPath(agent.id)}>
                <SlidersIcon size={18} />
                <span>Settings</span>
                <span class="sr-only"> of {agent.name}</span>
              </a>
            ) : null}
          </div>
        </li>
      ))}
    </ul>
  );
}

function knowledgeSummary(knowledge: TAgentKnowledge): string {
  if (knowledge.source_count === 0) return 'None yet: add pages, files or text for it to answer from.';
  const plural = (n: number, word: string) => `${n.toLocaleString()} ${word}${n === 1 ? '' : 's'}`;
  const failed = knowledge.failed_source_count;
  return `${plural(knowledge.source_count, 'source')}, ${plural(knowledge.document_count, 'document')}, ${plural(
    knowledge.chunk_count,
    'passage',
  )}${failed > 0 ? `, ${failed} failed` : ''}`;
}
