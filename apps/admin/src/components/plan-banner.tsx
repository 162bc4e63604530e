import { type TWorkspacePlan, ZWorkspacePlan } from '@service/contract';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { session } from '../session';
import { sizeText } from '../size-text';
import { AlertIcon } from './icons';

type LimitName = TWorkspacePlan['at_limit'][number];

/** One line per limit reached: what is used of what, and what stops while it is. */
function describe(plan: TWorkspacePlan, limit: LimitName): string {
  const { limits, usage } = plan;
  switch (limit) {
    case 'agents':
      return `Agents: ${usage.agents} of ${limits.agents}. New agents can't be added.`;
    case 'sources':
      return `Sources: ${usage.sources} of ${limits.sources}. New sources and uploads can't be added.`;
    case 'upload_bytes':
      return `Upload storage: ${sizeText(usage.upload_bytes)} of ${sizeText(limits.upload_bytes ?? 0)}. New files can't be uploaded.`;
    case 'messages_per_month':
      return `Visitor messages this month: ${usage.messages_this_month} of ${limits.messages_per_month}. Visitors get a polite "can't take more questions" reply until next month${usage.refused_messages_this_month > 0 ? ` (${usage.refused_messages_this_month} so far)` : ''}.`;
  }
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
          {plan.at_limit.map((limit) => (
            <li key={limit}>{describe(plan, limit)}</li>
          ))}
        </ul>
        <p class="plan-banner-hint">To go on, upgrade the plan or remove something you no longer need.</p>
      </div>
    </section>
  );
}
