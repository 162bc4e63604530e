import { type TSavedReply, ZConversationMessage, ZConversationNote, ZSavedReply } from '@service/contract';
import type { TargetedEvent } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { z } from 'zod';
import { ApiError, api, apiVoid } from '../api';
import { can } from '../session';

/** Operator typing goes out at most this often while they type. */
const TYPING_EVERY_MS = 2_500;

/**
 * Writes to the visitor (only while holding the claim) or leaves an internal note. A saved reply
 * can fill the text. While the operator types a reply, "typing" goes to the service (throttled;
 * the visitor sees it), and "stopped" when they send or leave the box.
 */
export function InboxComposer(props: {
  conversationId: string;
  canReply: boolean;
  replyReason: string | undefined;
  canNote: boolean;
  onSent: (notice: string) => void;
}) {
  const [mode, setMode] = useState<'reply' | 'note'>(props.canReply ? 'reply' : 'note');
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [isSending, setSending] = useState(false);
  const [saved, setSaved] = useState<TSavedReply[]>([]);
  const lastTyping = useRef(0);
  const path = `/conversations/${encodeURIComponent(props.conversationId)}`;

  useEffect(() => {
    if (props.canReply) setMode('reply');
  }, [props.canReply]);
  useEffect(() => {
    if (!can('conversations.reply')) return;
    api('/saved-replies', z.array(ZSavedReply))
      .then(setSaved)
      .catch(() => setSaved([]));
  }, []);

  const signalTyping = (typing: boolean) => {
    if (mode !== 'reply' || !props.canReply) return;
    const now = Date.now();
    if (typing && now - lastTyping.current < TYPING_EVERY_MS) return;
    if (!typing && lastTyping.current === 0) return;
    lastTyping.current = typing ? now : 0;
    // Best effort: a lost typing signal only delays the indicator.
    apiVoid(`${path}/typing`, { method: 'POST', body: { typing } }).catch(() => undefined);
  };

  if (!props.canNote) return null;
  const isReply = mode === 'reply';
  const onSubmit = async (event: TargetedEvent<HTMLFormElement>) => {
    event.preventDefault();
    const content = text.trim();
    if (!content) {
      setError(isReply ? 'Write a reply first.' : 'Write a note first.');
      return;
    }
    setSending(true);
    try {
      if (isReply) {
        signalTyping(false);
        await api(`${path}/messages`, ZConversationMessage, { method: 'POST', body: { content } });
      } else {
        await api(`${path}/notes`, ZConversationNote, { method: 'POST', body: { body: content } });
      }
      setText('');
      setError(null);
      props.onSent(isReply ? 'Reply sent.' : 'Note added: only your team sees it.');
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 401) return;
      setError(
        caught instanceof ApiError
          ? (Object.values(caught.errors)[0]?.[0] ?? caught.message)
          : 'Could not send.',
      );
    } finally {
      setSending(false);
    }
  };

  return (
    <form class={`inbox-composer${isReply ? '' : ' note-mode'}`} onSubmit={(event) => void onSubmit(event)}>
      <fieldset class="inbox-modes">
        <legend class="sr-only">Write</legend>
        <button
          type="button"
          class="inbox-tab"
          aria-pressed={isReply}
          disabled={!props.canReply}
          title={props.replyReason}
          onClick={() => setMode('reply')}
        >
          Reply to visitor
        </button>
        <button type="button" class="inbox-tab" aria-pressed={!isReply} onClick={() => setMode('note')}>
          Internal note
        </button>
      </fieldset>
      {isReply ? null : (
        <p class="muted inbox-note-hint">Only your team sees notes; the visitor never does.</p>
      )}
      {!props.canReply && props.replyReason ? <p class="muted inbox-note-hint">{props.replyReason}</p> : null}
      <label for="inbox-text" class="sr-only">
        {isReply ? 'Reply to the visitor' : 'Internal note'}
      </label>
      <textarea
        id="inbox-text"
        rows={3}
        value={text}
        onInput={(event) => {
          setText(event.currentTarget.value);
          signalTyping(event.currentTarget.value.length > 0);
        }}
        onBlur={() => signalTyping(false)}
      />
      {error ? (
        <p class="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="inbox-composer-row">
        {isReply && saved.length > 0 ? (
          <span class="inbox-saved">
            <label for="inbox-saved">Saved reply</label>
            <select
              id="inbox-saved"
              value=""
              onChange={(event) => {
                const picked = saved.find((reply) => reply.id === event.currentTarget.value);
                if (picked) setText(picked.body);
                event.currentTarget.value = '';
              }}
            >
              <option value="">Insert…</option>
              {saved.map((reply) => (
                <option key={reply.id} value={reply.id}>
                  {reply.title}
                </option>
              ))}
            </select>
          </span>
        ) : null}
        <button type="submit" class="button primary small" disabled={isSending}>
          {isReply ? 'Send reply' : 'Add note'}
        </button>
      </div>
    </form>
  );
}
