import {
  type TConversationDetail,
  type TConversationMessage,
  type TConversationNote,
  ZConversationDetail,
  ZConversationSummary,
} from '@service/contract';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, apiVoid } from '../api';
import { FormMessage } from '../components/field';
import { dateText } from '../date-text';
import { useLive } from '../live';
import { can, session } from '../session';
import { InboxComposer } from './inbox-composer';
import { InboxSidePanel } from './inbox-side-panel';

/** The visitor counts as typing this long after a typing signal without a stop. */
const TYPING_SHOWN_MS = 6_000;

type Entry =
  | { kind: 'message'; at: string; message: TConversationMessage }
  | { kind: 'note'; at: string; note: TConversationNote };

/**
 * One conversation: messages (bot answers with their sources, operator replies with their
 * author, the visitor) and the team's notes in one thread, the takeover buttons (disabled, with
 * the reason, where the role or the state does not allow them), the composer, and beside it the
 * visitor's page, language, rating, leads and the timeline. Opening it marks it read.
 */
export function InboxConversation(props: {
  conversationId: string;
  backHref: string;
  liveTick: number;
  onChanged: () => void;
}) {
  const { conversationId } = props;
  const [detail, setDetail] = useState<TConversationDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [isBusy, setBusy] = useState(false);
  const [visitorTyping, setVisitorTyping] = useState(false);
  const typingTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const path = `/conversations/${encodeURIComponent(conversationId)}`;

  const load = async () => {
    try {
      const next = await api(path, ZConversationDetail);
      setDetail(next);
      setVisitorTyping(next.visitor_typing);
      setError(null);
      await apiVoid(`${path}/read`, { method: 'POST' });
      props.onChanged();
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 401) return;
      setError(
        caught instanceof ApiError && caught.status === 404
          ? 'This conversation does not exist.'
          : 'Could not load the conversation.',
      );
    }
  };
  useEffect(() => {
    void load();
  }, [conversationId, props.liveTick]);
  useEffect(() => () => clearTimeout(typingTimer.current), []);

  useLive(['typing'], (event) => {
    if (event.type !== 'typing' || event.conversation_id !== conversationId || event.who !== 'visitor')
      return;
    clearTimeout(typingTimer.current);
    setVisitorTyping(event.typing);
    if (event.typing) typingTimer.current = setTimeout(() => setVisitorTyping(false), TYPING_SHOWN_MS);
  });

  if (error) return <FormMessage kind="error">{error}</FormMessage>;
  if (!detail) {
    return (
      <p class="muted" aria-busy="true">
        Loading the conversation…
      </p>
    );
  }

  const me = session.value?.user.id ?? null;
  const mayReply = can('conversations.reply');
  const isMine = detail.status === 'claimed' && detail.claimed_by_user_id === me;
  const holder = detail.claimed_by_user_id
    ? (detail.operators[detail.claimed_by_user_id] ?? 'another operator')
    : null;
  const act = async (action: 'claim' | 'release' | 'close', done: string) => {
    setBusy(true);
    try {
      await api(`${path}/${action}`, ZConversationSummary, { method: 'POST' });
      setNotice(done);
      await load();
    } catch (caught) {
      setNotice(caught instanceof Error ? caught.message : 'That did not work.');
    } finally {
      setBusy(false);
    }
  };
  const roleReason = mayReply ? undefined : 'Your role can read conversations but not answer them.';
  const claimReason =
    roleReason ??
    (detail.status === 'closed'
      ? 'This conversation is closed.'
      : detail.status === 'claimed'
        ? isMine
          ? 'You hold this conversation.'
          : `${holder ?? 'Another operator'} holds this conversation.`
        : undefined);
  const releaseReason =
    roleReason ??
    (detail.status === 'claimed' || detail.status === 'waiting'
      ? undefined
      : 'Nobody holds it: the bot answers.');
  const closeReason = roleReason ?? (detail.status === 'closed' ? 'Already closed.' : undefined);

  const entries: Entry[] = [
    ...detail.messages.map((message): Entry => ({ kind: 'message', at: message.created_at, message })),
    ...detail.notes.map((note): Entry => ({ kind: 'note', at: note.created_at, note })),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));

  return (
    <article class="inbox-conversation" aria-labelledby="conversation-title">
      <a class="inbox-back" href={props.backHref}>
        ← All conversations
      </a>
      <header class="inbox-conversation-head">
        <h2 id="conversation-title">
          {detail.page_title || 'Conversation'}
          <span class="muted inbox-status"> · {statusText(detail.status, holder, isMine)}</span>
        </h2>
        <div class="actions">
          <ActionButton
            label="Claim"
            reason={claimReason}
            busy={isBusy}
            onClick={() => void act('claim', 'You hold this conversation: the bot is silent.')}
            primary
          />
          <ActionButton
            label="Release"
            reason={releaseReason}
            busy={isBusy}
            onClick={() => void act('release', 'Handed back to the bot.')}
          />
          <ActionButton
            label="Close"
            reason={closeReason}
            busy={isBusy}
            onClick={() => void act('close', 'Conversation closed.')}
          />
        </div>
      </header>
      {roleReason ? <p class="muted">{roleReason}</p> : null}
      <p class="copy-status" role="status">
        {notice}
      </p>
      <div class="inbox-body">
        <div class="inbox-thread-column">
          <ol class="inbox-thread" aria-label="Messages and notes">
            {entries.map((entry) =>
              entry.kind === 'message' ? (
                <MessageItem key={entry.message.id} message={entry.message} operators={detail.operators} />
              ) : (
                <li key={entry.note.id} class="bubble note">
                  <span class="bubble-who">
                    Note by {entry.note.author_name ?? 'a teammate'} · only your team sees this
                  </span>
                  <p>{entry.note.body}</p>
                  <span class="muted bubble-when">{dateText(entry.note.created_at)}</span>
                </li>
              ),
            )}
          </ol>
          {visitorTyping ? (
            <p class="inbox-typing" aria-live="polite">
              The visitor is typing…
            </p>
          ) : null}
          <InboxComposer
            conversationId={conversationId}
            canReply={isMine}
            replyReason={roleReason ?? (isMine ? undefined : 'Claim the conversation to reply.')}
            canNote={mayReply}
            onSent={(text) => {
              setNotice(text);
              void load();
            }}
          />
        </div>
        <InboxSidePanel detail={detail} />
      </div>
    </article>
  );
}

function statusText(status: TConversationDetail['status'], holder: string | null, isMine: boolean): string {
  if (status === 'claimed') return isMine ? 'held by you' : `held by ${holder ?? 'another operator'}`;
  if (status === 'waiting') return 'waiting for a human';
  if (status === 'closed') return 'closed';
  return 'the bot answers';
}

function ActionButton(props: {
  label: string;
  reason: string | undefined;
  busy: boolean;
  onClick: () => void;
  primary?: boolean;
}) {
  const id = `why-${props.label.toLowerCase()}`;
  return (
    <span class="inbox-action">
      <button
        type="button"
        class={`button small ${props.primary ? 'primary' : 'ghost'}`}
        disabled={props.busy || props.reason !== undefined}
        aria-describedby={props.reason ? id : undefined}
        onClick={props.onClick}
      >
        {props.label}
      </button>
      {props.reason ? (
        <span id={id} class="sr-only">
          {props.reason}
        </span>
      ) : null}
    </span>
  );
}

function MessageItem(props: { message: TConversationMessage; operators: Record<string, string> }) {
  const { message } = props;
  const who =
    message.role === 'visitor'
      ? 'Visitor'
      : message.role === 'assistant'
        ? 'Bot'
        : message.role === 'operator'
          ? (message.author_user_id && props.operators[message.author_user_id]) || 'Operator'
          : 'Service';
  return (
    <li class={`bubble ${message.role}`}>
      <span class="bubble-who">{who}</span>
      <p>{message.content}</p>
      {message.citations.length > 0 ? (
        <ul class="bubble-sources" aria-label="Sources of this answer">
          {message.citations.map((citation) => (
            <li key={citation.id}>
              [{citation.id}]{' '}
              {citation.url ? (
                <a href={citation.url} target="_blank" rel="noopener noreferrer">
                  {citation.title || citation.url}
                </a>
              ) : (
                citation.title
              )}
            </li>
          ))}
        </ul>
      ) : null}
      <span class="muted bubble-when">{dateText(message.created_at)}</span>
    </li>
  );
}
