import { type TAgent, type TSource, ZAgent, ZSource } from '@service/contract';
import { useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { z } from 'zod';
import { ApiError, api } from '../api';
import { AgentTabs } from '../components/agent-tabs';
import { FormMessage } from '../components/field';
import { knowledgePath } from '../paths';
import { BUSY, messageOf } from './knowledge-shared';
import { PlaygroundChat } from './playground-chat';
import './playground.css';

/**
 * An agent's playground: ask it as a visitor would and see, under each answer, the chunks it
 * used with each retriever's rank and the fused score. An agent without knowledge gets the way
 * to add some instead.
 */
export function Playground() {
  const { params } = useRoute();
  const agentId = params.id ?? '';
  const base = `/agents/${encodeURIComponent(agentId)}`;
  const [agent, setAgent] = useState<TAgent | null>(null);
  const [sources, setSources] = useState<TSource[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    const onError = (what: string) => (error: unknown) => {
      if (error instanceof ApiError && error.status === 401) return;
      setLoadError(messageOf(error, `Could not load the ${what}.`));
    };
    api(base, ZAgent).then(setAgent).catch(onError('agent'));
    api(`${base}/sources`, z.array(ZSource)).then(setSources).catch(onError('sources'));
  }, [base]);

  const indexed = sources?.filter((source) => source.status === 'indexed').length ?? 0;
  const isIndexing = sources?.some((source) => BUSY.has(source.status)) ?? false;

  return (
    <section class="page playground" aria-labelledby="playground-title">
      <AgentTabs agentId={agentId} agentName={agent?.name ?? null} />
      <h1 id="playground-title">Playground</h1>
      <p class="muted">
        Try the agent before your visitors do, and see which passages each answer was built from and how each
        search ranked them.
      </p>
      {loadError ? <FormMessage kind="error">{loadError}</FormMessage> : null}
      {sources === null ? (
        loadError ? null : (
          <p class="muted" aria-busy="true">
            Loading…
          </p>
        )
      ) : sources.length === 0 ? (
        <div class="card pg-empty">
          <h2>No knowledge yet</h2>
          <p class="muted">
            The agent answers only from what you give it, so there is nothing to try yet. Add your site, a
            page, some text or a file first.
          </p>
          <a class="button primary" href={knowledgePath(agentId)}>
            Add knowledge
          </a>
        </div>
      ) : (
        <>
          {indexed === 0 ? (
            <FormMessage kind="info">
              {isIndexing
                ? 'The knowledge is still being indexed: until it is, the agent says it does not know.'
                : 'No source is indexed: the agent can only say it does not know. See the Knowledge tab.'}
            </FormMessage>
          ) : null}
          <PlaygroundChat agentId={agentId} />
        </>
      )}
    </section>
  );
}
