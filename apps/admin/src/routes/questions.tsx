import { QUESTION_REASONS, type TAgentQuestion, ZQuestionPage } from '@service/contract';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import type { z } from 'zod';
import { ApiError, apiPage } from '../api';
import { AgentTabs } from '../components/agent-tabs';
import { FormMessage } from '../components/field';
import { CONSOLE_PAGE_SIZE } from '../paged-list';
import { correctionsPath, playgroundPath } from '../paths';
import { filterOf, type QuestionFilter, questionsQuery, REASON_TEXT } from './quality-shared';
import { QuestionRow } from './question-row';
import { SelectField } from './select-field';
import { useAgent } from './use-agent';
import './access.css';
import './quality.css';

type Counts = z.infer<typeof ZQuestionPage>['meta']['counts'];

/**
 * An agent's unanswered and down-rated questions: filtered by status and reason (with the counts
 * of each), the answer and the chunks behind it; one click makes a question a correction or a
 * knowledge-base article (prefilled), or dismisses it.
 */
export function Questions() {
  const { params } = useRoute();
  const location = useLocation();
  const agentId = params.id ?? '';
  const base = `/agents/${encodeURIComponent(agentId)}/questions`;
  const { agent, error: agentError } = useAgent(agentId);
  const [filter, setFilter] = useState<QuestionFilter>(() => filterOf(location.query));
  const [items, setItems] = useState<TAgentQuestion[] | null>(null);
  const [counts, setCounts] = useState<Counts | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [isLoadingMore, setLoadingMore] = useState(false);
  const [done, setDone] = useState('');
  const title = useRef<HTMLHeadingElement>(null);

  const fail = (caught: unknown) => {
    if (caught instanceof ApiError && caught.status === 401) return;
    setError(caught instanceof Error ? caught.message : 'Could not load the questions.');
  };
  const load = useCallback(async () => {
    try {
      const page = await apiPage(`${base}${questionsQuery(filter, CONSOLE_PAGE_SIZE, null)}`, ZQuestionPage);
      setItems(page.data);
      setCounts(page.meta.counts);
      setCursor(page.meta.next_cursor);
      setError(null);
    } catch (caught) {
      fail(caught);
    }
  }, [base, filter]);
  useEffect(() => {
    void load();
  }, [load]);

  const loadMore = async () => {
    if (cursor === null) return;
    setLoadingMore(true);
    try {
      const page = await apiPage(
        `${base}${questionsQuery(filter, CONSOLE_PAGE_SIZE, cursor)}`,
        ZQuestionPage,
      );
      setItems((current) => [...(current ?? []), ...page.data]);
      setCursor(page.meta.next_cursor);
    } catch (caught) {
      fail(caught);
    } finally {
      setLoadingMore(false);
    }
  };

  const onFilter = (next: QuestionFilter) => {
    setFilter(next);
    setDone('');
    // The address keeps the filter, so a reload or a shared link shows the same list.
    const query = new URLSearchParams({ status: next.status });
    if (next.reason !== 'all') query.set('reason', next.reason);
    location.route(`${location.path}?${query}`, true);
  };
  const onResolved = (text: string) => {
    setDone(text);
    title.current?.focus();
    void load();
  };

  const statusCount = (status: 'open' | 'resolved') => (counts ? ` (${counts.status[status]})` : '');
  const reasonCount = (reason: (typeof QUESTION_REASONS)[number]) =>
    counts ? ` (${counts.reason[reason]})` : '';
  const total = counts ? counts.status.open + counts.status.resolved : null;

  return (
    <section class="page quality" aria-labelledby="questions-title">
      <AgentTabs agentId={agentId} agentName={agent?.name ?? null} />
      <h1 id="questions-title" ref={title} tabIndex={-1}>
        Unanswered and down-rated questions
      </h1>
      <p class="muted">
        Visitor questions the agent could not answer, answered with “I don’t know”, handed to a human, or
        whose answer was rated down. Fix each once: as a correction, as a knowledge-base article, or dismiss
        it.
      </p>
      {agentError ? <FormMessage kind="error">{agentError}</FormMessage> : null}
      <div class="q-filters">
        <SelectField
          name="status"
          label="Status"
          value={filter.status}
          options={[
            { value: 'open', label: `Open${statusCount('open')}` },
            { value: 'resolved', label: `Resolved${statusCount('resolved')}` },
            { value: 'all', label: `All${total === null ? '' : ` (${total})`}` },
          ]}
          onChange={(value) => onFilter(filterOf({ status: value, reason: filter.reason }))}
        />
        <SelectField
          name="reason"
          label="Reason"
          value={filter.reason}
          options={[
            { value: 'all', label: 'Any reason' },
            ...QUESTION_REASONS.map((reason) => ({
              value: reason,
              label: `${REASON_TEXT[reason]}${reasonCount(reason)}`,
            })),
          ]}
          onChange={(value) => onFilter(filterOf({ status: filter.status, reason: value }))}
        />
      </div>
      <p class="copy-status" role="status">
        {done}
      </p>
      {items === null && error === null ? (
        <p class="muted" aria-busy="true">
          Loading questions…
        </p>
      ) : null}
      {error ? <FormMessage kind="error">{error}</FormMessage> : null}
      {items?.length === 0 ? (
        <div class="card empty-state">
          <h2>{total === 0 ? 'No questions recorded yet' : 'Nothing here'}</h2>
          <p class="muted">
            {total === 0
              ? 'When a visitor’s question finds nothing, gets “I don’t know”, ends with a request for a human, or its answer is rated down, it shows here with the passages behind the answer, so you can fix it once for everyone.'
              : 'No question matches these filters. Choose another status or reason.'}{' '}
            Try the agent in the <a href={playgroundPath(agentId)}>playground</a>, or see its{' '}
            <a href={correctionsPath(agentId)}>corrections</a>.
          </p>
        </div>
      ) : null}
      {items && items.length > 0 ? (
        <ul class="row-list" aria-label="Questions">
          {items.map((question) => (
            <QuestionRow
              key={question.id}
              agentId={agentId}
              base={base}
              question={question}
              onResolved={onResolved}
            />
          ))}
        </ul>
      ) : null}
      {cursor !== null ? (
        <div class="load-more">
          <p class="muted" aria-live="polite">
            Showing the first {items?.length ?? 0} questions.
          </p>
          <button type="button" class="button ghost" disabled={isLoadingMore} onClick={() => void loadMore()}>
            {isLoadingMore ? 'Loading…' : 'Load more questions'}
          </button>
        </div>
      ) : null}
    </section>
  );
}
