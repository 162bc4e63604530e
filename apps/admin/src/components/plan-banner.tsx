import { type TWorkspacePlan, ZWorkspacePlan } from '@service/contract';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { PLAN_LIMITS, type PlanLimit } from '../plan-limits';
import { session } from '../session';
import { AlertIcon } from './icons';

/** One line per limit reached: what is used of what, and what stops while it is. */
function describe(plan: TWorkspacePlan, limit: PlanLimit): string {
  const refused = plan.usage.refused_messages_this_month;
  const soFar = limit.name === 'messages_per_month' && refused > 0 ? ` (${refused} so far)` : '';
  const stops = soFar ? limit.stops.replace(/\.$/, `${soFar}.`) : limit.stops;
  return `${limit.label}: ${limit.format(limit.used(plan))} of ${limit.format(limit.limit(plan) ?? 0)}. ${stops}`;
}

/**
 * The banner over every signed-in screen while the workspace has reached a limit of its plan
 * (read again on each navigation, so a limit reached by the last action shows on the next screen).
 * Nothing is shown when no limit is reached or the plan cannot be read.
 */
export function PlanBanner(props: { path: string }) {
  const [plan, setPlan] = useState<TWorkspacePlan | null>(null);
  const workspaceId = session.value?.workspace.id;

  useEffect(() => {
    if (!workspaceId) return;
    let isCurrent = true;
    api('/plan', ZWorkspacePlan)
      .then((next) => {
        if (isCurrent) setPlan(next);
      })
      .catch(() => {
        if (isCurrent) setPlan(null);
      });
    return () => {
      isCurrent = false;
    };
  }, [workspaceId, props.path]);

  if (!plan || plan.at_limit.length === 0) return null;
  return (
    <section class="plan-banner" role="status" aria-label="Plan limit reached">
      <AlertIcon size={20} />
      <div>
        <p class="plan-banner-title">This workspace has reached a limit of its plan ({plan.plan.name}).</p>
        <ul>
          {PLAN_LIMITS.filter((limit) => plan.at_limit.includes(limit.name)).map((limit) => (
            <li key={limit.name}>{describe(plan, limit)}</li>
          ))}
        </ul>
        <p class="plan-banner-hint">To go on, upgrade the plan or remove something you no longer need.</p>
      </div>
    </section>
  );
}
