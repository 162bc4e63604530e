import type { TWorkspacePlan } from '@service/contract';
import { sizeText } from './size-text';

type LimitName = TWorkspacePlan['at_limit'][number];

/** What the plan banner and the plan page say of each limit: what it counts, how, what stops. */
export type PlanLimit = {
  name: LimitName;
  label: string;
  used: (plan: TWorkspacePlan) => number;
  limit: (plan: TWorkspacePlan) => number | null;
  format: (value: number) => string;
  stops: string;
};

const count = (value: number) => value.toLocaleString('en');

/** One limit of the plan: what it counts, how it is written, and what stops when it is reached. */
export const PLAN_LIMITS: readonly PlanLimit[] = [
  {
    name: 'messages_per_month',
    label: 'Visitor messages this month',
    used: (plan) => plan.usage.messages_this_month,
    limit: (plan) => plan.limits.messages_per_month,
    format: count,
    stops: 'Visitors get a polite "can\'t take more questions" reply until next month.',
  },
  {
    name: 'agents',
    label: 'Agents',
    used: (plan) => plan.usage.agents,
    limit: (plan) => plan.limits.agents,
    format: count,
    stops: "New agents can't be added.",
  },
  {
    name: 'sources',
    label: 'Knowledge sources',
    used: (plan) => plan.usage.sources,
    limit: (plan) => plan.limits.sources,
    format: count,
    stops: "New sources and uploads can't be added.",
  },
  {
    name: 'upload_bytes',
    label: 'Upload storage',
    used: (plan) => plan.usage.upload_bytes,
    limit: (plan) => plan.limits.upload_bytes,
    format: sizeText,
    stops: "New files can't be uploaded.",
  },
];
