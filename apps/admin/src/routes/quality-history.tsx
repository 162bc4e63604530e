import type { TEvaluationRunSummary } from '@service/contract';
import { useMemo } from 'preact/hooks';
import { dateText } from '../date-text';
import { type ChartSeries, TimeChart } from './analytics-chart';

type DoneRun = TEvaluationRunSummary & { metrics: NonNullable<TEvaluationRunSummary['metrics']> };

const percent = (value: number) => `${Math.round(value * 100)}%`;

/**
 * The evaluation history of an agent: recall@1, recall@5 and MRR over its finished runs as a
 * chart (with its summary in words), and each run's regressions listed (the questions whose
 * expected page left the top five since the run before).
 */
export function EvaluationHistory(props: { runs: readonly TEvaluationRunSummary[] }) {
  const done = useMemo(
    () =>
      props.runs
        .filter((run): run is DoneRun => run.status === 'done' && run.metrics !== null)
        .slice()
        .reverse(),
    [props.runs],
  );
  const x = useMemo(() => done.map((run) => Date.parse(run.finished_at ?? run.created_at) / 1000), [done]);
  const series = useMemo<ChartSeries[]>(
    () => [
      { label: 'Recall@1', color: '#2f5bd3', values: done.map((run) => run.metrics.recall_at_1) },
      { label: 'Recall@5', color: '#1a7f37', values: done.map((run) => run.metrics.recall_at_5) },
      { label: 'MRR', color: '#9a6700', values: done.map((run) => run.metrics.mrr) },
    ],
    [done],
  );
  if (done.length < 2) return null;
  const first = done[0];
  const last = done[done.length - 1];
  const withRegressions = done.filter((run) => run.regressions.length > 0).reverse();
  const summary =
    first && last
      ? `${done.length} finished runs from ${dateText(first.created_at)} to ${dateText(last.created_at)}: ` +
        `recall@5 went from ${percent(first.metrics.recall_at_5)} to ${percent(last.metrics.recall_at_5)}, ` +
        `recall@1 from ${percent(first.metrics.recall_at_1)} to ${percent(last.metrics.recall_at_1)}, ` +
        `MRR from ${first.metrics.mrr.toFixed(2)} to ${last.metrics.mrr.toFixed(2)}. Each run's numbers are in the runs table.`
      : '';
  return (
    <section class="q-history" aria-labelledby="history-title">
      <h2 id="history-title">Quality over runs</h2>
      <TimeChart
        title="Recall and MRR per run"
        xLabel="Run"
        x={x}
        series={series}
        summary={summary}
        yMax={1}
      />
      <h3>Regressions by run</h3>
      {withRegressions.length === 0 ? (
        <p class="muted">No run lost a question its previous run found.</p>
      ) : (
        <ul class="q-regressions">
          {withRegressions.map((run) => (
            <li key={run.id}>
              <strong>{dateText(run.created_at)}</strong>
              <ul>
                {run.regressions.map((item) => (
                  <li key={item.golden_id}>
                    {item.question}{' '}
                    <span class="muted">
                      (rank {item.previous_rank} before,{' '}
                      {item.rank === null ? 'not found' : `rank ${item.rank}`} now)
                    </span>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
