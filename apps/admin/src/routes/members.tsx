import {
  assignableRoles,
  type TInvite,
  type TMember,
  type TMembershipRole,
  ZInvite,
  ZInviteCreate,
  ZMember,
} from '@service/contract';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { z } from 'zod';
import { ApiError, api } from '../api';
import { Field, FormActions, FormMessage } from '../components/field';
import { PlusIcon } from '../components/icons';
import { useForm } from '../components/use-form';
import { dateText } from '../date-text';
import { PATHS } from '../paths';
import { session } from '../session';
import { SelectField } from './select-field';
import './access.css';

/** The role picker's words (short: a phone shows the whole option). */
const ROLE_TEXT: Record<TMembershipRole, string> = {
  owner: 'Owner',
  admin: 'Admin',
  editor: 'Editor',
  viewer: 'Viewer',
};

/** What each role may do (docs/roles.md), under the invite form's role picker. */
const ROLES_HINT =
  'Owner: everything, owners too. Admin: everything but owners. Editor: answers conversations, edits knowledge. Viewer: reads only.';

const roleOptions = (roles: TMembershipRole[]) =>
  roles.map((role) => ({ value: role, label: ROLE_TEXT[role] }));

/** A failure's message for the page: the service's words (a 403 says the role can't), or `fallback`. */
function messageOf(error: unknown, fallback: string): string {
  return error instanceof ApiError || error instanceof Error ? error.message : fallback;
}

/** The workspace's members (role change, removal, leaving) and invites (send, list, revoke). */
export function Members() {
  const [members, setMembers] = useState<TMember[] | null>(null);
  const [invites, setInvites] = useState<TInvite[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [isInviting, setInviting] = useState(false);
  const me = session.value;
  const myRole = me?.role ?? 'viewer';

  const load = useCallback(async () => {
    try {
      const [memberList, inviteList] = await Promise.all([
        api('/members', z.array(ZMember)),
        api('/invites', z.array(ZInvite)),
      ]);
      setMembers(memberList);
      setInvites(inviteList);
      setError(null);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 401) return;
      setError(messageOf(caught, 'Could not load the members.'));
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section class="page" aria-labelledby="members-title">
      <div class="page-head">
        <h1 id="members-title" tabIndex={-1}>
          Members
        </h1>
        {isInviting || error ? null : (
          <button type="button" class="button primary" onClick={() => setInviting(true)}>
            <PlusIcon size={18} />
            <span>Invite</span>
          </button>
        )}
      </div>
      <p class="muted">
        Who works in this workspace, and what their role lets them do. An invite is a link by mail that works
        once, within 7 days.
      </p>
      {error ? <FormMessage kind="error">{error}</FormMessage> : null}
      {isInviting ? (
        <InviteForm
          roles={assignableRoles(myRole)}
          onSent={() => {
            setInviting(false);
            void load();
          }}
          onCancel={() => setInviting(false)}
        />
      ) : null}
      {members === null && error === null ? (
        <p class="muted" aria-busy="true">
          Loading members…
        </p>
      ) : null}
      {members && members.length > 0 ? (
        <ul class="row-list" aria-label="Members">
          {members.map((member) => (
            <MemberRow
              key={member.user_id}
              member={member}
              myRole={myRole}
              isMe={member.user_id === me?.user.id}
              onChanged={load}
            />
          ))}
        </ul>
      ) : null}
      {invites && invites.length > 0 ? (
        <>
          <h2>Pending invites</h2>
          <ul class="row-list" aria-label="Pending invites">
            {invites.map((invite) => (
              <InviteRow key={invite.id} invite={invite} myRole={myRole} onRevoked={load} />
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

function InviteForm(props: { roles: TMembershipRole[]; onSent: () => void; onCancel: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<string>('editor');
  const { errors, notice, isBusy, submit } = useForm();
  return (
    <form
      class="card form-card"
      aria-label="Invite a member"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void submit({
          check: () => ZInviteCreate.safeParse({ email, role }),
          send: async (input) => {
            await api('/invites', ZInvite, { method: 'POST', body: input });
            props.onSent();
          },
          fallback: 'Could not send the invite.',
        });
      }}
    >
      <h2>Invite a member</h2>
      {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
      <Field
        name="email"
        label="Email"
        type="email"
        value={email}
        onInput={setEmail}
        errors={errors}
        autofocus
      />
      <SelectField
        name="role"
        label="Role"
        hint={ROLES_HINT}
        value={role}
        options={roleOptions(props.roles)}
        onChange={setRole}
        errors={errors}
      />
      <FormActions label="Send invite" busyLabel="Sending…" isBusy={isBusy} onCancel={props.onCancel} />
    </form>
  );
}

function MemberRow(props: {
  member: TMember;
  myRole: TMembershipRole;
  isMe: boolean;
  onChanged: () => Promise<void>;
}) {
  const { member, myRole, isMe } = props;
  const [role, setRole] = useState<string>(member.role);
  const [isConfirming, setConfirming] = useState(false);
  const [isBusy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  // Only an owner touches owners; the role list is what the caller may give.
  const canTouch = member.role !== 'owner' || myRole === 'owner';
  const run = async (action: () => Promise<unknown>, fallback: string) => {
    setBusy(true);
    setMessage(null);
    try {
      await action();
      setConfirming(false);
      await props.onChanged();
    } catch (caught) {
      setMessage(messageOf(caught, fallback));
    } finally {
      setBusy(false);
    }
  };
  const path = `/members/${encodeURIComponent(member.user_id)}`;
  const onLeave = () =>
    run(async () => {
      await api('/members/leave', ZMember, { method: 'POST' });
      session.value = null;
      location.assign(PATHS.signIn);
    }, 'Could not leave the workspace.');
  return (
    <li class="row-card">
      <div class="row-title">
        <h2>
          {member.name || member.email}
          {isMe ? <span class="muted"> (you)</span> : null}
        </h2>
        <span class={`badge ${member.role === 'owner' ? 'ok' : 'draft'}`}>{member.role}</span>
      </div>
      <dl class="row-facts">
        <div>
          <dt>Email</dt>
          <dd>{member.email}</dd>
        </div>
        <div>
          <dt>Joined</dt>
          <dd>{dateText(member.joined_at)}</dd>
        </div>
      </dl>
      {canTouch ? (
        <div class="member-actions">
          <SelectField
            name={`role-${member.user_id}`}
            label="Role"
            value={role}
            options={roleOptions(assignableRoles(myRole))}
            onChange={setRole}
          />
          <div class="actions">
            <button
              type="button"
              class="button"
              disabled={isBusy || role === member.role}
              onClick={() =>
                void run(
                  () => api(path, ZMember, { method: 'PATCH', body: { role } }),
                  'Could not change the role.',
                )
              }
            >
              Change role
            </button>
            {isConfirming ? null : (
              <button type="button" class="button ghost" onClick={() => setConfirming(true)}>
                {isMe ? 'Leave…' : 'Remove…'}
              </button>
            )}
          </div>
        </div>
      ) : null}
      {isConfirming ? (
        <fieldset class="confirm">
          <legend class="visually-hidden">{isMe ? 'Leave the workspace' : `Remove ${member.email}`}</legend>
          <p>
            {isMe
              ? 'Leave this workspace? You lose access at once; an owner can invite you again.'
              : `Remove ${member.email}? Their sessions here end and the API tokens they made here stop working.`}
          </p>
          <div class="actions">
            <button
              type="button"
              class="button danger"
              disabled={isBusy}
              onClick={() =>
                void (isMe
                  ? onLeave()
                  : run(() => api(path, ZMember, { method: 'DELETE' }), 'Could not remove the member.'))
              }
            >
              {isMe ? 'Yes, leave' : 'Yes, remove'}
            </button>
            <button type="button" class="button ghost" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </fieldset>
      ) : null}
      {message ? <FormMessage kind="error">{message}</FormMessage> : null}
    </li>
  );
}

function InviteRow(props: { invite: TInvite; myRole: TMembershipRole; onRevoked: () => Promise<void> }) {
  const { invite } = props;
  const [isBusy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const canRevoke = assignableRoles(props.myRole).includes(invite.role);
  const onRevoke = async () => {
    setBusy(true);
    setMessage(null);
    try {
      await api(`/invites/${encodeURIComponent(invite.id)}`, ZInvite, { method: 'DELETE' });
      await props.onRevoked();
    } catch (caught) {
      setMessage(messageOf(caught, 'Could not revoke the invite.'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <li class="row-card">
      <div class="row-title">
        <h2>{invite.email}</h2>
        <span class="badge draft">{invite.role}</span>
      </div>
      <dl class="row-facts">
        <div>
          <dt>Sent</dt>
          <dd>{dateText(invite.created_at)}</dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{dateText(invite.expires_at)}</dd>
        </div>
      </dl>
      {canRevoke ? (
        <div class="actions">
          <button type="button" class="button ghost" disabled={isBusy} onClick={() => void onRevoke()}>
            {isBusy ? 'Revoking…' : 'Revoke invite'}
          </button>
        </div>
      ) : null}
      {message ? <FormMessage kind="error">{message}</FormMessage> : null}
    </li>
  );
}
