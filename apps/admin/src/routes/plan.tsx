import { type TBillingStatus, type TWorkspacePlan, ZWorkspacePlan } from '@service/contract';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { FormMessage } from '../components/field';
import './plan.css';
import { PLAN_LIMITS as LIMITS } from '../plan-limits';

/** The subscription's state in words, and whether it needs attention. */
const BILLING: Record<TBillingStatus, { text: string; tone: 'ok' | 'warn' | 'muted' }> = {
  none: { text: 'No subscription', tone: 'muted' },
  active: { text: 'Subscription active', tone: 'ok' },
  past_due: { text: 'Payment failed: past due', tone: 'warn' },
  cancelled: { text: 'Subscription cancelled', tone: 'muted' },
};

/**
 * The workspace's plan and what it uses of it (`GET /plan`): each limit with its usage, a bar,
 * and what stops once it is reached; the subscription's state as billing last reported it.
 */
export function Plan() {
  const [plan, setPlan] = useState<TWorkspacePlan | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let isCurrent = true;
    api('/plan', ZWorkspacePlan)
      .then((next) => {
        if (isCurrent) setPlan(next);
      })
      .catch((caught: unknown) => {
        if (isCurrent) setError(caught instanceof ApiError ? caught.message : 'Could not load the plan.');
      });
    return () => {
      isCurrent = false;
    };
  }, []);

  return (
    <section class="page plan-page" aria-labelledby="plan-title">
      <h1 id="plan-title">Plan and usage</h1>
      {error ? <FormMessage kind="error">{error}</FormMessage> : null}
      {plan === null && error === null ? (
        <p class="muted" aria-busy="true">
          Loading the plan…
        </p>
      ) : null}
      {plan ? <PlanDetails plan={plan} /> : null}
    </section>
  );
}

function PlanDetails(props: { plan: TWorkspacePlan }) {
  const { plan } = props;
  const billing = BILLING[plan.billing_status];
  return (
    <>
      <div class="card plan-head">
        <div>
          <p class="muted plan-label">Plan</p>
          <p class="plan-name">{plan.plan.name}</p>
        </div>
        <span class={`badge billing-${billing.tone}`}>{billing.text}</span>
      </div>
      <ul class="plan-limits" aria-label="Limits">
        {LIMITS.map((item) => {
          const used = item.used(plan);
          const limit = item.limit(plan);
          const reached = plan.at_limit.includes(item.name);
          return (
            <li key={item.name} class={`card plan-limit${reached ? ' reached' : ''}`}>
              <div class="plan-limit-head">
                <h2>{item.label}</h2>
                <p class="plan-limit-count">
                  {limit === null
                    ? `${item.format(used)} · no limit`
                    : `${item.format(used)} of ${item.format(limit)}`}
                </p>
              </div>
              {limit !== null && limit > 0 ? (
                <meter
                  class="plan-bar"
                  aria-label={`${item.label} used`}
                  min={0}
                  max={limit}
                  value={Math.min(used, limit)}
                />
              ) : null}
              {reached ? <p class="plan-limit-stop">Limit reached. {item.stops}</p> : null}
              {item.name === 'messages_per_month' && plan.usage.refused_messages_this_month > 0 ? (
                <p class="muted">
                  {plan.usage.refused_messages_this_month.toLocaleString('en')} visitor messages refused this
                  month.
                </p>
              ) : null}
            </li>
          );
        })}
      </ul>
      <p class="muted">
        Messages are counted per calendar month (UTC), this one {plan.period}. The plan changes with your
        subscription, or when the operator of this service changes it.
      </p>
    </>
  );
}
