import {
  type TEvaluationRun,
  type TEvaluationRunSummary,
  ZEvaluationRun,
  ZEvaluationRunSummary,
} from '@service/contract';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { ApiError, api } from '../api';
import { AgentTabs } from '../components/agent-tabs';
import { FormMessage } from '../components/field';
import { LoadMore } from '../components/load-more';
import { useFocusOnShow } from '../components/use-focus-on-show';
import { dateText } from '../date-text';
import { usePagedList } from '../paged-list';
import { GoldenSet } from './quality-golden';
import { EvaluationHistory } from './quality-history';
import { countText, deltaText, isRunBusy, metricCells } from './quality-shared';
import { useAgent } from './use-agent';
import './access.css';
import './quality.css';
import { can } from '../session';

/** How often the runs are read again while one is queued or running. */
const POLL_MS = 1500;

const STATUS_BADGE: Record<TEvaluationRun['status'], string> = {
  queued: 'draft',
  running: 'warn',
  done: 'ok',
  failed: 'bad',
};

/**
 * An agent's quality: its golden set (questions with the pages that answer them) and its
 * evaluation runs (recall@1, recall@5 and MRR, each run's misses and regressions).
 */
export function Quality() {
  const { params } = useRoute();
  const agentId = params.id ?? '';
  const base = `/agents/${encodeURIComponent(agentId)}`;
  const { agent, error: agentError } = useAgent(agentId);
  const runs = usePagedList(
    `${base}/evaluations?order=desc`,
    ZEvaluationRunSummary,
    'Could not load the runs.',
  );
  const [goldenCount, setGoldenCount] = useState<number | null>(null);
  const [runError, setRunError] = useState<string | null>(null);
  const [isStarting, setStarting] = useState(false);
  const [shown, setShown] = useState<TEvaluationRun | null>(null);
  const loadRuns = runs.reload;
  useEffect(() => {
    void loadRuns();
  }, [loadRuns]);

  // While a run is queued or running, read the list again (and the open run with it).
  const isBusy = runs.items?.some(isRunBusy) ?? false;
  useEffect(() => {
    if (!isBusy) return;
    const timer = setTimeout(() => void loadRuns(), POLL_MS);
    return () => clearTimeout(timer);
  }, [isBusy, runs.items]);

  const onRun = async () => {
    setStarting(true);
    setRunError(null);
    try {
      await api(`${base}/evaluations`, ZEvaluationRun, { method: 'POST' });
      await loadRuns();
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) {
        setRunError('Add at least one question to the golden set first: a run measures the agent on it.');
      } else if (!(error instanceof ApiError && error.status === 401)) {
        setRunError(error instanceof Error ? error.message : 'Could not start the run.');
      }
    } finally {
      setStarting(false);
    }
  };

  const items = runs.items;
  return (
    <section class="page quality" aria-labelledby="quality-title">
      <AgentTabs agentId={agentId} agentName={agent?.name ?? null} />
      <h1 id="quality-title">Quality</h1>
      <p class="muted">
        Measure whether the agent finds the right page for the questions that matter to you. Keep a golden set
        of questions with the pages that answer them; every run searches each one as a visitor’s question
        would be and counts how often an expected page comes first, or in the top five.
      </p>
      {agentError ? <FormMessage kind="error">{agentError}</FormMessage> : null}
      <div class="page-head">
        <h2 id="runs-title">Evaluation runs</h2>
        {can('knowledge.edit') ? (
          <button type="button" class="button primary" disabled={isStarting} onClick={() => void onRun()}>
            {isStarting ? 'Starting…' : 'Run evaluation now'}
          </button>
        ) : null}
      </div>
      {runError ? <FormMessage kind="error">{runError}</FormMessage> : null}
      {runs.error ? <FormMessage kind="error">{runs.error}</FormMessage> : null}
      {items === null && runs.error === null ? (
        <p class="muted" aria-busy="true">
          Loading runs…
        </p>
      ) : null}
      {items?.length === 0 ? (
        <div class="card empty-state">
          <h3>No runs yet</h3>
          <p class="muted">
            {goldenCount === 0
              ? 'Add a few questions to the golden set below, then run an evaluation. '
              : 'Run an evaluation to see how well the agent finds the expected pages. '}
            A run also starts by itself when the agent’s knowledge is indexed again, so a change that makes
            answers worse shows up as a regression.
          </p>
        </div>
      ) : null}
      {items && items.length > 0 ? (
        <RunTable runs={items} base={base} shownId={shown?.id ?? null} onShow={setShown} />
      ) : null}
      <LoadMore list={runs} noun="runs" />
      {shown ? <RunDetail run={shown} onClose={() => setShown(null)} /> : null}
      {items ? <EvaluationHistory runs={items} /> : null}
      <GoldenSet agentId={agentId} onCount={setGoldenCount} />
    </section>
  );
}

function RunTable(props: {
  runs: TEvaluationRunSummary[];
  base: string;
  shownId: string | null;
  onShow: (run: TEvaluationRun) => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const onShow = async (id: string) => {
    setError(null);
    try {
      props.onShow(await api(`${props.base}/evaluations/${encodeURIComponent(id)}`, ZEvaluationRun));
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : 'Could not load the run.');
    }
  };
  return (
    <div class="q-table-wrap">
      <table class="q-runs" aria-labelledby="runs-title">
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Questions
            </th>
            <th scope="col" class="num">
              Recall@1
            </th>
            <th scope="col" class="num">
              Recall@5
            </th>
            <th scope="col" class="num">
              MRR
            </th>
            <th scope="col" class="num">
              Misses
            </th>
            <th scope="col" class="num">
              Regressions
            </th>
            <th scope="col">
              <span class="visually-hidden">Details</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.runs.map((run, index) => {
            const cells = metricCells(run.metrics);
            const before = props.runs.slice(index + 1).find((older) => older.status === 'done')?.metrics;
            return (
              <tr key={run.id}>
                <td data-label="Run">
                  <span>
                    {dateText(run.created_at)}
                    <span class="q-delta">
                      {run.trigger === 'manual' ? 'Run by hand' : 'After a re-index'}
                    </span>
                  </span>
                </td>
                <td data-label="Status">
                  <span class={`badge ${STATUS_BADGE[run.status]}`}>{run.status}</span>
                </td>
                <td data-label="Questions" class="num">
                  {cells.questions}
                </td>
                <Metric
                  label="Recall@1"
                  text={cells.recall1}
                  delta={run.metrics && deltaText(run.metrics.recall_at_1, before?.recall_at_1)}
                />
                <Metric
                  label="Recall@5"
                  text={cells.recall5}
                  delta={run.metrics && deltaText(run.metrics.recall_at_5, before?.recall_at_5)}
                />
                <Metric label="MRR" text={cells.mrr} delta={null} />
                <td data-label="Misses" class="num">
                  {run.status === 'done' ? run.misses : '—'}
                </td>
                <td data-label="Regressions" class="num">
                  {run.status === 'done' ? (
                    <span class={run.regressions.length > 0 ? 'badge bad' : undefined}>
                      {run.regressions.length}
                    </span>
                  ) : (
                    '—'
                  )}
                </td>
                <td data-label="Details">
                  {run.status === 'done' || run.status === 'failed' ? (
                    <button
                      type="button"
                      class="button ghost small"
                      aria-expanded={props.shownId === run.id}
                      onClick={() => void onShow(run.id)}
                    >
                      Details<span class="visually-hidden"> of the run of {dateText(run.created_at)}</span>
                    </button>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {error ? <FormMessage kind="error">{error}</FormMessage> : null}
    </div>
  );
}

function Metric(props: { label: string; text: string; delta: string | null }) {
  return (
    <td data-label={props.label} class="num">
      <span>
        {props.text}
        {props.delta ? (
          <span class={`q-delta${props.delta.startsWith('−') ? ' down' : ''}`}>{props.delta}</span>
        ) : null}
      </span>
    </td>
  );
}

/** One run's misses (not in the top 5, with what was found instead) and regressions. */
function RunDetail(props: { run: TEvaluationRun; onClose: () => void }) {
  const { run } = props;
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnShow(heading, run.id);
  return (
    <div class="card q-run-detail">
      <div class="page-head">
        <h3 ref={heading} tabIndex={-1}>
          Run of {dateText(run.created_at)}
        </h3>
        <button type="button" class="button ghost small" onClick={props.onClose}>
          Close
        </button>
      </div>
      {run.error ? <FormMessage kind="error">{`The run failed: ${run.error}`}</FormMessage> : null}
      <h4>Regressions ({run.regressions.length})</h4>
      {run.regressions.length === 0 ? (
        <p class="muted">
          {run.previous_run_id
            ? 'Nothing that passed last time fails now.'
            : 'The first run: nothing to compare with.'}
        </p>
      ) : (
        <ul>
          {run.regressions.map((item) => (
            <li key={item.golden_id}>
              {item.question}{' '}
              <span class="muted">
                (was #{item.previous_rank}, now {item.rank === null ? 'not found' : `#${item.rank}`})
              </span>
            </li>
          ))}
        </ul>
      )}
      <h4>Misses ({run.misses.length})</h4>
      {run.misses.length === 0 ? (
        <p class="muted">Every question found an expected page in the top five.</p>
      ) : (
        <ul>
          {run.misses.map((item) => (
            <li key={item.golden_id}>
              {item.question}{' '}
              <span class="muted">({item.rank === null ? 'not found in the top ten' : `#${item.rank}`})</span>
              {item.top.length > 0 ? (
                <span class="q-delta">
                  Found instead: {item.top.map((hit) => hit.title || hit.url || 'untitled').join(' · ')}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <p class="muted">{countText(run.results.length, 'question')} in this run.</p>
    </div>
  );
}
