import {
  SAVED_REPLIES_MAX,
  SAVED_REPLY_BODY_MAX,
  SAVED_REPLY_TITLE_MAX,
  type TSavedReply,
  ZSavedReply,
  ZSavedReplyCreate,
} from '@service/contract';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { z } from 'zod';
import { ApiError, api, apiVoid } from '../api';
import { Field, FormActions, FormMessage, TextArea } from '../components/field';
import { PlusIcon } from '../components/icons';
import { useFocusOnShow } from '../components/use-focus-on-show';
import { useForm } from '../components/use-form';
import { dateText } from '../date-text';
import { can, session } from '../session';
import './access.css';
import './saved-replies.css';

/** Above this many replies the list gets a filter box. */
const FILTER_FROM = 6;

/**
 * The workspace's saved replies: what operators pick in the inbox composer instead of typing the
 * same answer again. Owners and admins add, edit and delete them here.
 */
export function SavedReplies() {
  const isAllowed = can('workspace.configure');
  const [replies, setReplies] = useState<TSavedReply[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [isCreating, setCreating] = useState(false);
  const [filter, setFilter] = useState('');
  const title = useRef<HTMLHeadingElement>(null);

  const load = useCallback(async () => {
    try {
      setReplies(await api('/saved-replies', z.array(ZSavedReply)));
      setError(null);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 401) return;
      setError(caught instanceof Error ? caught.message : 'Could not load the saved replies.');
    }
  }, []);
  useEffect(() => {
    if (isAllowed) void load();
  }, [load, isAllowed]);

  const isFull = (replies?.length ?? 0) >= SAVED_REPLIES_MAX;
  const byTitle = (list: TSavedReply[]) => [...list].sort((a, b) => a.title.localeCompare(b.title));
  const replace = (next: TSavedReply) =>
    setReplies((current) => (current ? byTitle(current.map((r) => (r.id === next.id ? next : r))) : null));
  const remove = (id: string) => {
    setReplies((current) => current?.filter((r) => r.id !== id) ?? null);
    title.current?.focus();
  };
  const needle = filter.trim().toLocaleLowerCase();
  const shown =
    replies?.filter((r) => needle === '' || `${r.title}\n${r.body}`.toLocaleLowerCase().includes(needle)) ??
    [];

  return (
    <section class="page" aria-labelledby="saved-replies-title">
      <div class="page-head">
        <h1 id="saved-replies-title" ref={title} tabIndex={-1}>
          Saved replies
        </h1>
        {isAllowed && replies && !isCreating && !isFull ? (
          <button type="button" class="button primary" onClick={() => setCreating(true)}>
            <PlusIcon size={18} />
            <span>New saved reply</span>
          </button>
        ) : null}
      </div>
      <p class="muted">
        Answers your team gives often. In the inbox, an operator picks one under “Saved reply” and can edit it
        before sending; visitors see only the text.
      </p>
      {isAllowed ? null : (
        <FormMessage kind="error">
          {`Your role (${session.value?.role ?? 'viewer'}) can't do this. An owner or admin of this workspace manages its saved replies; you can still use them in the inbox.`}
        </FormMessage>
      )}
      {isFull ? (
        <FormMessage kind="info">{`A workspace may keep ${SAVED_REPLIES_MAX} saved replies: delete one to add another.`}</FormMessage>
      ) : null}
      {isCreating ? (
        <SavedReplyForm
          onSaved={(saved) => {
            setReplies((current) => byTitle([...(current ?? []), saved]));
            setCreating(false);
            title.current?.focus();
          }}
          onCancel={() => setCreating(false)}
        />
      ) : null}
      {error ? <FormMessage kind="error">{error}</FormMessage> : null}
      {isAllowed && replies === null && error === null ? (
        <p class="muted" aria-busy="true">
          Loading saved replies…
        </p>
      ) : null}
      {replies?.length === 0 && !isCreating ? (
        <div class="card empty-state">
          <h2>No saved replies yet</h2>
          <p class="muted">
            Add the answers you type again and again: opening hours, how returns work, where to find an
            invoice.
          </p>
        </div>
      ) : null}
      {replies && replies.length >= FILTER_FROM ? (
        <div class="saved-filter">
          <Field
            name="saved-filter"
            label="Find a saved reply"
            type="search"
            value={filter}
            onInput={setFilter}
            errors={{}}
            autocomplete="off"
          />
          <p class="muted" role="status">
            {needle === '' ? `${replies.length} saved replies` : `${shown.length} of ${replies.length} match`}
          </p>
        </div>
      ) : null}
      {shown.length > 0 ? (
        <ul class="row-list" aria-label="Saved replies">
          {shown.map((reply) => (
            <SavedReplyRow key={reply.id} reply={reply} onChanged={replace} onDeleted={remove} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** The create and edit form: a title the composer lists, and the text sent to the visitor. */
function SavedReplyForm(props: {
  reply?: TSavedReply;
  onSaved: (reply: TSavedReply) => void;
  onCancel: () => void;
}) {
  const { reply } = props;
  const [titleText, setTitle] = useState(reply?.title ?? '');
  const [body, setBody] = useState(reply?.body ?? '');
  const { errors, setErrors, notice, isBusy, submit } = useForm();
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnShow(heading);
  const formId = reply ? `saved-edit-${reply.id}` : 'saved-new';

  const onSubmit = async (event: Event) => {
    event.preventDefault();
    await submit({
      check: () => ZSavedReplyCreate.safeParse({ title: titleText, body }),
      send: async (input) => {
        const path = reply ? `/saved-replies/${encodeURIComponent(reply.id)}` : '/saved-replies';
        props.onSaved(await api(path, ZSavedReply, { method: reply ? 'PATCH' : 'POST', body: input }));
      },
      fallback: reply ? 'Could not save the reply.' : 'Could not add the reply.',
    });
  };
  const clearError = (field: string) => {
    if (errors[field]) setErrors(({ [field]: _, ...rest }) => rest);
  };
  return (
    <form
      class={reply ? 'saved-edit' : 'card form-card'}
      onSubmit={(event) => void onSubmit(event)}
      noValidate
      aria-labelledby={`${formId}-title`}
    >
      <h2 id={`${formId}-title`} ref={heading} tabIndex={-1}>
        {reply ? `Edit “${reply.title}”` : 'New saved reply'}
      </h2>
      <Field
        name={reply ? `title-${reply.id}` : 'title'}
        label="Title"
        hint={`What operators see in the list, up to ${SAVED_REPLY_TITLE_MAX} characters.`}
        value={titleText}
        onInput={(value) => {
          setTitle(value);
          clearError('title');
        }}
        errors={reply ? { [`title-${reply.id}`]: errors.title ?? [] } : errors}
        autocomplete="off"
      />
      <TextArea
        name={reply ? `body-${reply.id}` : 'body'}
        label="Reply"
        rows={5}
        hint={`The text sent to the visitor, up to ${SAVED_REPLY_BODY_MAX.toLocaleString('en')} characters. ${body.length.toLocaleString('en')} so far.`}
        value={body}
        onInput={(value) => {
          setBody(value);
          clearError('body');
        }}
        errors={reply ? { [`body-${reply.id}`]: errors.body ?? [] } : errors}
      />
      {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
      <FormActions
        label={reply ? 'Save reply' : 'Add reply'}
        busyLabel="Saving…"
        isBusy={isBusy}
        onCancel={props.onCancel}
      />
    </form>
  );
}

function SavedReplyRow(props: {
  reply: TSavedReply;
  onChanged: (reply: TSavedReply) => void;
  onDeleted: (id: string) => void;
}) {
  const { reply } = props;
  const [mode, setMode] = useState<'view' | 'edit' | 'confirm'>('view');
  const [isBusy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const editButton = useRef<HTMLButtonElement>(null);

  const onDelete = async () => {
    setBusy(true);
    setMessage(null);
    try {
      await apiVoid(`/saved-replies/${encodeURIComponent(reply.id)}`, { method: 'DELETE' });
      props.onDeleted(reply.id);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      setMessage(error instanceof Error ? error.message : 'Could not delete the reply.');
      setBusy(false);
    }
  };
  const backToView = () => {
    setMode('view');
    // The row's buttons come back on the next render: focus Edit there.
    requestAnimationFrame(() => editButton.current?.focus());
  };

  if (mode === 'edit') {
    return (
      <li class="row-card">
        <SavedReplyForm
          reply={reply}
          onSaved={(saved) => {
            props.onChanged(saved);
            backToView();
          }}
          onCancel={backToView}
        />
      </li>
    );
  }
  return (
    <li class="row-card">
      <div class="row-title">
        <h2>{reply.title}</h2>
      </div>
      <p class="saved-body">{reply.body}</p>
      <p class="muted saved-updated">{`Updated ${dateText(reply.updated_at)}`}</p>
      {mode === 'confirm' ? (
        <fieldset class="confirm">
          <legend class="visually-hidden">Delete the saved reply {reply.title}</legend>
          <p>Delete this saved reply? Conversations that used it keep their messages.</p>
          <div class="actions">
            <button type="button" class="button danger" disabled={isBusy} onClick={() => void onDelete()}>
              {isBusy ? 'Deleting…' : 'Yes, delete it'}
            </button>
            <button type="button" class="button ghost" onClick={backToView}>
              Keep it
            </button>
          </div>
        </fieldset>
      ) : (
        <div class="actions">
          <button
            ref={editButton}
            type="button"
            class="button ghost"
            aria-label={`Edit ${reply.title}`}
            onClick={() => setMode('edit')}
          >
            Edit
          </button>
          <button
            type="button"
            class="button ghost"
            aria-label={`Delete ${reply.title}…`}
            onClick={() => setMode('confirm')}
          >
            Delete…
          </button>
        </div>
      )}
      {message ? <FormMessage kind="error">{message}</FormMessage> : null}
    </li>
  );
}
