import {
  CORRECTION_ANSWER_MAX,
  CORRECTION_QUESTION_MAX,
  type TCorrection,
  ZCorrection,
  ZCorrectionCreate,
  ZCorrectionUpdate,
} from '@service/contract';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api, apiVoid } from '../api';
import { AgentTabs } from '../components/agent-tabs';
import { Field, FormMessage, TextArea } from '../components/field';
import { PlusIcon } from '../components/icons';
import { LoadMore } from '../components/load-more';
import { useFocusOnShow } from '../components/use-focus-on-show';
import { type FieldErrors, useForm } from '../components/use-form';
import { dateText } from '../date-text';
import { usePagedList } from '../paged-list';
import { questionsPath } from '../paths';
import { CorrectionTest } from './correction-test';
import { countText } from './quality-shared';
import { useAgent } from './use-agent';
import './access.css';
import './quality.css';
import { can } from '../session';

const SOURCE_TEXT: Record<TCorrection['source'], string> = {
  typed: 'Typed here',
  message: 'From a conversation',
  question: 'From a recorded question',
};

/**
 * An agent's answer corrections: the team's answers to questions, given before anything retrieval
 * finds when a visitor asks something close enough. List with use counts, add, edit, delete, and
 * "test a question" to see which correction (or which passages) would answer and their scores.
 */
export function Corrections() {
  const { params } = useRoute();
  const agentId = params.id ?? '';
  const base = `/agents/${encodeURIComponent(agentId)}/corrections`;
  const { agent, error: agentError } = useAgent(agentId);
  const list = usePagedList(`${base}?order=desc`, ZCorrection, 'Could not load the corrections.');
  const [isCreating, setCreating] = useState(false);
  const [saved, setSaved] = useState('');
  const title = useRef<HTMLHeadingElement>(null);
  const load = list.reload;
  useEffect(() => {
    void load();
  }, [load]);
  const corrections = list.items;

  const onCreated = () => {
    setCreating(false);
    setSaved('Correction saved: the agent gives it from now on.');
    title.current?.focus();
    void load();
  };
  const onDeleted = () => {
    setSaved('Correction deleted.');
    title.current?.focus();
    void load();
  };

  return (
    <section class="page quality" aria-labelledby="corrections-title">
      <AgentTabs agentId={agentId} agentName={agent?.name ?? null} />
      <div class="page-head">
        <h1 id="corrections-title" ref={title} tabIndex={-1}>
          Corrections
        </h1>
        {isCreating || !can('knowledge.edit') ? null : (
          <button type="button" class="button primary" onClick={() => setCreating(true)}>
            <PlusIcon size={18} />
            <span>New correction</span>
          </button>
        )}
      </div>
      <p class="muted">
        Your team’s answers to questions the agent got wrong. When a visitor asks something close enough, the
        agent gives your answer first, before anything it finds in its knowledge.
      </p>
      {agentError ? <FormMessage kind="error">{agentError}</FormMessage> : null}
      <p class="copy-status" role="status">
        {saved}
      </p>
      {isCreating ? (
        <CorrectionForm base={base} onSaved={onCreated} onCancel={() => setCreating(false)} />
      ) : null}
      <CorrectionTest agentId={agentId} />
      <h2 class="q-section">Saved corrections</h2>
      {corrections === null && list.error === null ? (
        <p class="muted" aria-busy="true">
          Loading corrections…
        </p>
      ) : null}
      {list.error ? <FormMessage kind="error">{list.error}</FormMessage> : null}
      {corrections?.length === 0 ? (
        <div class="card empty-state">
          <h3>No corrections yet</h3>
          <p class="muted">
            Write one when the agent answers a question badly or not at all, or turn one of its{' '}
            <a href={questionsPath(agentId)}>unanswered and down-rated questions</a> into a correction in one
            click.
          </p>
        </div>
      ) : null}
      {corrections && corrections.length > 0 ? (
        <ul class="row-list" aria-label="Corrections">
          {corrections.map((correction) => (
            <CorrectionRow
              key={correction.id}
              base={base}
              correction={correction}
              onUpdated={(next) => {
                list.replace(next);
                setSaved('Correction updated.');
              }}
              onDeleted={onDeleted}
            />
          ))}
        </ul>
      ) : null}
      <LoadMore list={list} noun="corrections" />
    </section>
  );
}

/** A correction's question and answer, to create one (no `correction`) or edit it. */
function CorrectionForm(props: {
  base: string;
  correction?: TCorrection;
  onSaved: (correction: TCorrection) => void;
  onCancel: () => void;
}) {
  const { correction } = props;
  const [question, setQuestion] = useState(correction?.question ?? '');
  const [answer, setAnswer] = useState(correction?.answer ?? '');
  const form = useForm();
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnShow(heading);
  // Field ids are unique on the page: an edit form's carry the correction's id.
  const key = correction ? `c${correction.id}` : 'new';
  const onSubmit = (event: Event) => {
    event.preventDefault();
    void form.submit({
      check: () =>
        correction
          ? ZCorrectionUpdate.safeParse({ question, answer })
          : ZCorrectionCreate.safeParse({ question, answer }),
      send: async (body) => {
        const path = correction ? `${props.base}/${encodeURIComponent(correction.id)}` : props.base;
        props.onSaved(await api(path, ZCorrection, { method: correction ? 'PATCH' : 'POST', body }));
      },
      errorsFor: (errors) => renamed(errors, key, question, answer),
      fallback: 'Could not save the correction.',
    });
  };
  return (
    <form class="card form-card" onSubmit={onSubmit} noValidate>
      <h2 ref={heading} tabIndex={-1}>
        {correction ? 'Edit correction' : 'New correction'}
      </h2>
      <Field
        name={`${key}-question`}
        label="Question"
        hint="As a visitor would ask it. Questions worded close to it get this answer too."
        value={question}
        onInput={setQuestion}
        errors={form.errors}
      />
      <TextArea
        name={`${key}-answer`}
        label="Answer"
        rows={5}
        value={answer}
        onInput={setAnswer}
        errors={form.errors}
      />
      {form.notice ? <FormMessage kind={form.notice.kind}>{form.notice.text}</FormMessage> : null}
      <div class="actions">
        <button type="submit" class="button primary" disabled={form.isBusy}>
          {form.isBusy ? 'Saving…' : 'Save correction'}
        </button>
        <button type="button" class="button ghost" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * The schema's and the service's `question`/`answer` errors on this form's own fields, in words
 * (a union schema names no field, so an empty or long text is said here).
 */
function renamed(errors: FieldErrors, key: string, question: string, answer: string): FieldErrors {
  const out: FieldErrors = {};
  const say = (field: string, text: string, max: number, empty: string, found?: string[]) => {
    const length = text.trim().length;
    if (length === 0) out[`${key}-${field}`] = [empty];
    else if (length > max) out[`${key}-${field}`] = [`At most ${max} characters (now ${length}).`];
    else if (found) out[`${key}-${field}`] = found;
  };
  say('question', question, CORRECTION_QUESTION_MAX, 'Write the question.', errors.question);
  say('answer', answer, CORRECTION_ANSWER_MAX, 'Write the answer.', errors.answer);
  for (const [field, messages] of Object.entries(errors)) {
    if (field !== 'question' && field !== 'answer' && field !== 'input') out[field] = messages;
  }
  return out;
}

function CorrectionRow(props: {
  base: string;
  correction: TCorrection;
  onUpdated: (correction: TCorrection) => void;
  onDeleted: () => void;
}) {
  const { correction } = props;
  const [mode, setMode] = useState<'view' | 'edit' | 'delete'>('view');
  const [isBusy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const onDelete = async () => {
    setBusy(true);
    setMessage(null);
    try {
      await apiVoid(`${props.base}/${encodeURIComponent(correction.id)}`, { method: 'DELETE' });
      props.onDeleted();
    } catch (error) {
      setMessage(error instanceof Error ? error.message : 'Could not delete the correction.');
      setBusy(false);
    }
  };
  if (mode === 'edit') {
    return (
      <li>
        <CorrectionForm
          base={props.base}
          correction={correction}
          onSaved={(next) => {
            setMode('view');
            props.onUpdated(next);
            setTimeout(() => heading.current?.focus());
          }}
          onCancel={() => setMode('view')}
        />
      </li>
    );
  }
  return (
    <li class="row-card">
      <div class="row-title">
        <h3 ref={heading} tabIndex={-1}>
          {correction.question}
        </h3>
        <span class={`badge ${correction.use_count > 0 ? 'ok' : 'draft'}`}>
          {correction.use_count > 0 ? `Used ${countText(correction.use_count, 'time')}` : 'Not used yet'}
        </span>
      </div>
      <p class="q-answer">{correction.answer}</p>
      <dl class="row-facts">
        <div>
          <dt>Last used</dt>
          <dd>{dateText(correction.last_used_at, 'Never')}</dd>
        </div>
        <div>
          <dt>Came from</dt>
          <dd>{SOURCE_TEXT[correction.source]}</dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>{dateText(correction.updated_at)}</dd>
        </div>
      </dl>
      {mode === 'delete' ? (
        <fieldset class="confirm">
          <legend class="visually-hidden">Delete the correction</legend>
          <p>Delete this correction? The agent answers this question from its knowledge again.</p>
          <div class="actions">
            <button type="button" class="button danger" disabled={isBusy} onClick={() => void onDelete()}>
              {isBusy ? 'Deleting…' : 'Yes, delete it'}
            </button>
            <button type="button" class="button ghost" onClick={() => setMode('view')}>
              Keep it
            </button>
          </div>
        </fieldset>
      ) : !can('knowledge.edit') ? null : (
        <div class="actions">
          <button type="button" class="button ghost" onClick={() => setMode('edit')}>
            Edit<span class="visually-hidden"> “{correction.question}”</span>
          </button>
          <button type="button" class="button ghost" onClick={() => setMode('delete')}>
            Delete…<span class="visually-hidden"> “{correction.question}”</span>
          </button>
        </div>
      )}
      {message ? <FormMessage kind="error">{message}</FormMessage> : null}
    </li>
  );
}
