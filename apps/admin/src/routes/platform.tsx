import {
  IMPERSONATION_MINUTES,
  type TPlatformMember,
  type TPlatformPlan,
  type TPlatformWorkspace,
  ZImpersonationStart,
  ZPlatformMember,
  ZPlatformPlan,
  ZPlatformPlanChanged,
  ZPlatformWorkspace,
} from '@service/contract';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { z } from 'zod';
import { ApiError, api, fieldErrorsOf } from '../api';
import { FormMessage, TextArea } from '../components/field';
import { LoadMore } from '../components/load-more';
import { useFocusOnShow } from '../components/use-focus-on-show';
import { usePagedList } from '../paged-list';
import { PATHS } from '../paths';
import { session, startImpersonation } from '../session';
import { SelectField } from './select-field';
import './access.css';
import './platform.css';
import { sizeText } from '../size-text';

/**
 * Platform operators' page: every workspace of the installation with its plan, usage and members;
 * change a plan, or view the console as one of its members (for 30 minutes, with a reason).
 * Anyone else finds nothing here (the service answers 404).
 */
export function Platform() {
  const isOperator = session.value?.user.role === 'admin' && !session.value.impersonation;
  const list = usePagedList('/platform/workspaces', ZPlatformWorkspace, 'Could not load the workspaces.');
  const [plans, setPlans] = useState<TPlatformPlan[]>([]);
  const load = list.reload;
  useEffect(() => {
    if (!isOperator) return;
    void load();
    api('/platform/plans', z.array(ZPlatformPlan))
      .then(setPlans)
      .catch(() => setPlans([]));
  }, [load, isOperator]);

  if (!isOperator) {
    return (
      <section class="page" aria-labelledby="platform-title">
        <h1 id="platform-title">Page not found</h1>
        <p class="muted">There is nothing at this address.</p>
      </section>
    );
  }
  const workspaces = list.items;
  return (
    <section class="page" aria-labelledby="platform-title">
      <div class="page-head">
        <h1 id="platform-title">Platform</h1>
      </div>
      <p class="muted">
        Every workspace on this installation. Plan changes and viewing as a member are recorded in that
        workspace’s audit log under your name.
      </p>
      {list.error ? <FormMessage kind="error">{list.error}</FormMessage> : null}
      {workspaces === null && list.error === null ? (
        <p class="muted" aria-busy="true">
          Loading workspaces…
        </p>
      ) : null}
      {workspaces && workspaces.length > 0 ? (
        <ul class="row-list" aria-label="Workspaces">
          {workspaces.map((workspace) => (
            <WorkspaceRow key={workspace.id} workspace={workspace} plans={plans} onChanged={list.replace} />
          ))}
        </ul>
      ) : null}
      <LoadMore list={list} noun="workspaces" />
    </section>
  );
}

function WorkspaceRow(props: {
  workspace: TPlatformWorkspace;
  plans: TPlatformPlan[];
  onChanged: (workspace: TPlatformWorkspace) => void;
}) {
  const { workspace } = props;
  const [isViewing, setViewing] = useState(false);
  const headingId = `ws-${workspace.id}`;
  return (
    <li class="row-card platform-row" aria-labelledby={headingId}>
      <div class="row-title">
        <h2 id={headingId}>{workspace.name}</h2>
        <span class="muted">{workspace.slug}</span>
      </div>
      <dl class="row-facts">
        <div>
          <dt>Plan</dt>
          <dd>{workspace.plan.name}</dd>
        </div>
        <div>
          <dt>Members</dt>
          <dd>{workspace.member_count}</dd>
        </div>
        <div>
          <dt>Agents · sources</dt>
          <dd>
            {workspace.usage.agents} · {workspace.usage.sources}
          </dd>
        </div>
        <div>
          <dt>Messages this month</dt>
          <dd>{workspace.usage.messages_this_month}</dd>
        </div>
        <div>
          <dt>Uploads</dt>
          <dd>{sizeText(workspace.usage.upload_bytes)}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{new Date(workspace.created_at).toLocaleDateString()}</dd>
        </div>
      </dl>
      <div class="platform-actions">
        <PlanChange
          workspace={workspace}
          plans={props.plans}
          onChanged={(plan) => props.onChanged({ ...workspace, plan })}
        />
        {isViewing ? null : (
          <button type="button" class="button ghost" onClick={() => setViewing(true)}>
            View as…
          </button>
        )}
      </div>
      {isViewing ? <ViewAs workspace={workspace} onCancel={() => setViewing(false)} /> : null}
    </li>
  );
}

function PlanChange(props: {
  workspace: TPlatformWorkspace;
  plans: TPlatformPlan[];
  onChanged: (plan: TPlatformPlan) => void;
}) {
  const [choice, setChoice] = useState(props.workspace.plan.key);
  const [message, setMessage] = useState<{ kind: 'error' | 'info'; text: string } | null>(null);
  const [isBusy, setBusy] = useState(false);
  useEffect(() => setChoice(props.workspace.plan.key), [props.workspace.plan.key]);
  const options = props.plans.length > 0 ? props.plans : [props.workspace.plan];

  const onSubmit = async (event: Event) => {
    event.preventDefault();
    setMessage(null);
    setBusy(true);
    try {
      const changed = await api(
        `/platform/workspaces/${encodeURIComponent(props.workspace.id)}/plan`,
        ZPlatformPlanChanged,
        { method: 'POST', body: { plan: choice } },
      );
      const plan = options.find((candidate) => candidate.key === changed.plan) ?? {
        key: changed.plan,
        name: changed.plan,
      };
      props.onChanged(plan);
      setMessage({ kind: 'info', text: `Now on ${plan.name}.` });
    } catch (error) {
      setMessage({
        kind: 'error',
        text: error instanceof ApiError ? error.message : 'Could not change the plan.',
      });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="plan-change" onSubmit={(event) => void onSubmit(event)} noValidate>
      <SelectField
        name={`plan-${props.workspace.id}`}
        label={`Plan of ${props.workspace.name}`}
        value={choice}
        options={options.map((plan) => ({ value: plan.key, label: plan.name }))}
        onChange={setChoice}
      />
      <button type="submit" class="button" disabled={isBusy || choice === props.workspace.plan.key}>
        Change plan
      </button>
      {message ? <FormMessage kind={message.kind}>{message.text}</FormMessage> : null}
    </form>
  );
}

function ViewAs(props: { workspace: TPlatformWorkspace; onCancel: () => void }) {
  const location = useLocation();
  const [members, setMembers] = useState<TPlatformMember[] | null>(null);
  const [userId, setUserId] = useState('');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [isBusy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);

  useFocusOnShow(heading, props.workspace.id);
  useEffect(() => {
    api(`/platform/workspaces/${encodeURIComponent(props.workspace.id)}/members`, z.array(ZPlatformMember))
      .then((found) => {
        setMembers(found);
        setUserId(found[0]?.id ?? '');
      })
      .catch(() => setMessage('Could not load the members.'));
  }, [props.workspace.id]);

  const onSubmit = async (event: Event) => {
    event.preventDefault();
    setMessage(null);
    const parsed = ZImpersonationStart.safeParse({
      workspace_id: props.workspace.id,
      user_id: userId,
      reason,
    });
    if (!parsed.success) {
      setErrors(fieldErrorsOf(parsed.error));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await startImpersonation(parsed.data);
      location.route(PATHS.agents);
    } catch (error) {
      if (error instanceof ApiError) {
        setErrors(error.errors);
        if (Object.keys(error.errors).length === 0) setMessage(error.message);
      } else setMessage('Could not start viewing as this member.');
      setBusy(false);
    }
  };

  return (
    <form class="card form-card view-as" onSubmit={(event) => void onSubmit(event)} noValidate>
      <h3 ref={heading} tabIndex={-1}>
        View {props.workspace.name} as a member
      </h3>
      <p class="muted">
        For {IMPERSONATION_MINUTES} minutes you see the console as they do. Their secrets, password, email,
        two-factor, sessions, API tokens and model keys stay out of reach.
      </p>
      {members === null && message === null ? <p class="muted">Loading members…</p> : null}
      {members && members.length === 0 ? <p class="muted">This workspace has no members.</p> : null}
      {members && members.length > 0 ? (
        <SelectField
          name="user_id"
          label="Member"
          value={userId}
          options={members.map((member) => ({
            value: member.id,
            label: `${member.name ? `${member.name} · ` : ''}${member.email} (${member.role})`,
          }))}
          onChange={setUserId}
          errors={errors}
        />
      ) : null}
      <TextArea
        name="reason"
        label="Reason"
        hint="Recorded in the workspace’s audit log, e.g. the support ticket."
        rows={3}
        value={reason}
        onInput={(value) => {
          setReason(value);
          if (errors.reason) setErrors(({ reason: _, ...rest }) => rest);
        }}
        errors={errors}
      />
      {message ? <FormMessage kind="error">{message}</FormMessage> : null}
      <div class="actions">
        <button type="submit" class="button primary" disabled={isBusy || !members || members.length === 0}>
          Start viewing
        </button>
        <button type="button" class="button ghost" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
