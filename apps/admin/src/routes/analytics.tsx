import { type TAgentAnalytics, ZAgentAnalytics } from '@service/contract';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { API_BASE, ApiError, api } from '../api';
import { AgentTabs } from '../components/agent-tabs';
import { FormMessage } from '../components/field';
import { type ChartSeries, TimeChart } from './analytics-chart';
import { dayText, type PeriodChoice, percentText, periodOf, todayUtc } from './analytics-period';
import { AnalyticsTables } from './analytics-tables';
import { useAgent } from './use-agent';
import './analytics.css';

const CHOICES: ReadonlyArray<{ value: PeriodChoice; label: string }> = [
  { value: 7, label: '7 days' },
  { value: 30, label: '30 days' },
  { value: 90, label: '90 days' },
  { value: 'custom', label: 'Custom' },
];

/**
 * An agent's analytics for a period: KPI tiles (conversations, deflection, unanswered,
 * satisfaction), daily charts, the daily numbers as a table, the top questions and the most
 * cited sources with the ratings of the answers that cited them, and a CSV export.
 */
export function Analytics() {
  const { params } = useRoute();
  const agentId = params.id ?? '';
  const { agent, error: agentError } = useAgent(agentId);
  const today = todayUtc();
  const [choice, setChoice] = useState<PeriodChoice>(30);
  const [custom, setCustom] = useState({ from: periodOf(30, { from: '', to: '' }, today).from, to: today });
  const period = periodOf(choice, custom, today);
  const [data, setData] = useState<TAgentAnalytics | null>(null);
  const [error, setError] = useState<string | null>(null);
  const query = `from=${encodeURIComponent(period.from)}&to=${encodeURIComponent(period.to)}`;
  const base = `/agents/${encodeURIComponent(agentId)}/analytics`;

  useEffect(() => {
    if (period.error) return;
    let isCurrent = true;
    setError(null);
    api(`${base}?${query}`, ZAgentAnalytics)
      .then((next) => {
        if (isCurrent) setData(next);
      })
      .catch((caught: unknown) => {
        if (!isCurrent || (caught instanceof ApiError && caught.status === 401)) return;
        setError(caught instanceof Error ? caught.message : 'Could not load the analytics.');
      });
    return () => {
      isCurrent = false;
    };
  }, [base, query, period.error]);

  return (
    <section class="page analytics" aria-labelledby="analytics-title">
      <AgentTabs agentId={agentId} agentName={agent?.name ?? null} />
      <div class="page-head">
        <h1 id="analytics-title">Analytics</h1>
        {data && !period.error ? (
          <a class="button" href={`${API_BASE}${base}.csv?${query}`} download>
            Export CSV
          </a>
        ) : null}
      </div>
      <p class="muted">Days are UTC; a conversation and everything in it count on the day it started.</p>
      {agentError ? <FormMessage kind="error">{agentError}</FormMessage> : null}
      <fieldset class="an-period">
        <legend>Period</legend>
        <div class="an-choices">
          {CHOICES.map((item) => (
            <label key={item.value} class={choice === item.value ? 'an-choice selected' : 'an-choice'}>
              <input
                type="radio"
                name="period"
                value={String(item.value)}
                checked={choice === item.value}
                onChange={() => setChoice(item.value)}
              />
              {item.label}
            </label>
          ))}
        </div>
        {choice === 'custom' ? (
          <div class="an-custom">
            <label>
              First day
              <input
                type="date"
                value={custom.from}
                max={today}
                onChange={(event) => setCustom({ ...custom, from: event.currentTarget.value })}
              />
            </label>
            <label>
              Last day
              <input
                type="date"
                value={custom.to}
                max={today}
                onChange={(event) => setCustom({ ...custom, to: event.currentTarget.value })}
              />
            </label>
          </div>
        ) : null}
      </fieldset>
      {period.error ? <FormMessage kind="error">{period.error}</FormMessage> : null}
      {error ? <FormMessage kind="error">{error}</FormMessage> : null}
      {data === null && error === null ? (
        <p class="muted" aria-busy="true">
          Loading analytics…
        </p>
      ) : null}
      {data && !period.error ? <AnalyticsBody data={data} /> : null}
    </section>
  );
}

function AnalyticsBody({ data }: { data: TAgentAnalytics }) {
  const { totals } = data;
  const x = useMemo(() => data.days.map((day) => Date.parse(`${day.day}T00:00:00Z`) / 1000), [data]);
  const volume = useMemo<ChartSeries[]>(
    () => [
      { label: 'Conversations', color: '#2f5bd3', values: data.days.map((d) => d.conversations) },
      { label: 'Bot only', color: '#1a7f37', values: data.days.map((d) => d.bot_only) },
      { label: 'Handed to a human', color: '#9a6700', values: data.days.map((d) => d.handed_off) },
    ],
    [data],
  );
  const quality = useMemo<ChartSeries[]>(
    () => [
      { label: 'Unanswered', color: '#b42318', values: data.days.map((d) => d.unanswered) },
      { label: 'Rated up', color: '#1a7f37', values: data.days.map((d) => d.rated_up) },
      { label: 'Rated down', color: '#8250df', values: data.days.map((d) => d.rated_down) },
    ],
    [data],
  );
  const range = `${dayText(data.from)} to ${dayText(data.to)}`;
  const busiest = data.days.reduce<TAgentAnalytics['days'][number] | undefined>(
    (best, day) => (best === undefined || day.conversations > best.conversations ? day : best),
    undefined,
  );
  return (
    <>
      <ul class="an-tiles" aria-label="Totals">
        <Tile
          label="Conversations"
          value={String(totals.conversations)}
          note={`${totals.visitor_messages} visitor messages`}
        />
        <Tile
          label="Answered by the bot alone"
          value={percentText(totals.deflection_rate)}
          note={`${totals.bot_only} bot only, ${totals.handed_off} handed to a human`}
        />
        <Tile
          label="Unanswered"
          value={percentText(totals.unanswered_rate)}
          note={`${totals.unanswered} of ${totals.questions} questions`}
        />
        <Tile
          label="Satisfaction"
          value={percentText(totals.satisfaction_rate)}
          note={`${totals.rated_up} up, ${totals.rated_down} down`}
        />
      </ul>
      <div class="an-charts">
        <TimeChart
          utc
          title="Conversations per day"
          x={x}
          series={volume}
          summary={`${range}: ${totals.conversations} conversations, ${totals.bot_only} answered by the bot alone, ${totals.handed_off} handed to a human; busiest day ${busiest ? `${dayText(busiest.day)} with ${busiest.conversations}` : 'none'}. Every day's numbers are in the table "Daily numbers".`}
        />
        <TimeChart
          utc
          title="Unanswered and ratings per day"
          x={x}
          series={quality}
          summary={`${range}: ${totals.unanswered} unanswered questions, ${totals.rated_up} ratings up and ${totals.rated_down} down. Every day's numbers are in the table "Daily numbers".`}
        />
      </div>
      <AnalyticsTables data={data} />
    </>
  );
}

function Tile(props: { label: string; value: string; note: string }) {
  return (
    <li class="an-tile card">
      <span class="an-tile-label">{props.label}</span>
      <strong class="an-tile-value">{props.value}</strong>
      <span class="muted an-tile-note">{props.note}</span>
    </li>
  );
}
