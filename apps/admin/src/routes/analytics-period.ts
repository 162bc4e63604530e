import { ANALYTICS_PERIOD_MAX_DAYS } from '@service/contract';

/** The period picker's choices: the last 7, 30 or 90 days up to today, or two chosen days. */
export type PeriodChoice = 7 | 30 | 90 | 'custom';

/** A period of UTC days (both included), or why the chosen one is refused. */
export type Period = { from: string; to: string; error: null } | { from: string; to: string; error: string };

const DAY_MS = 86_400_000;

/** Today as a UTC day, `YYYY-MM-DD`. */
export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** The UTC day `n` days before `day`. */
export function daysBefore(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);
}

/** The period a choice stands for; a custom one is checked as the service checks it. */
export function periodOf(choice: PeriodChoice, custom: { from: string; to: string }, today: string): Period {
  if (choice !== 'custom') return { from: daysBefore(today, choice - 1), to: today, error: null };
  const { from, to } = custom;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to))
    return { from, to, error: 'Choose a first and a last day.' };
  const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  if (!(span >= 1)) return { from, to, error: 'The first day must be on or before the last day.' };
  if (span > ANALYTICS_PERIOD_MAX_DAYS)
    return { from, to, error: `Choose at most ${ANALYTICS_PERIOD_MAX_DAYS} days.` };
  return { from, to, error: null };
}

/** A share as a whole percentage ("—" when there is nothing to divide). */
export function percentText(rate: number | null): string {
  return rate === null ? '—' : `${Math.round(rate * 100)}%`;
}

/** A day for people: "Mar 10" (UTC, so it matches the service's days). */
export function dayText(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, {
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  });
}
