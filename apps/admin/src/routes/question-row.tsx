import {
  type TAgentQuestion,
  type TCorrectionTestResult,
  ZAgentQuestion,
  ZQuestionResolution,
  ZQuestionToCorrection,
  ZQuestionToKbArticle,
} from '@service/contract';
import { useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { Field, FormMessage, TextArea } from '../components/field';
import { useFocusOnShow } from '../components/use-focus-on-show';
import { type FieldErrors, useForm } from '../components/use-form';
import { dateText } from '../date-text';
import { correctionsPath } from '../paths';
import { can } from '../session';
import { TestResult, testQuestion } from './correction-test';
import { draftAnswerOf, REASON_TEXT, RESOLUTION_TEXT, scoreText } from './quality-shared';

type Mode = 'view' | 'correction' | 'article' | 'dismiss';

/** One recorded question: why, the answer and its chunks, and what to do about it. */
export function QuestionRow(props: {
  agentId: string;
  base: string;
  question: TAgentQuestion;
  onResolved: (text: string) => void;
}) {
  const { question } = props;
  const [mode, setMode] = useState<Mode>('view');
  const [now, setNow] = useState<TCorrectionTestResult | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [isBusy, setBusy] = useState(false);
  const path = `${props.base}/${encodeURIComponent(question.id)}`;
  const isOpen = question.status === 'open';

  const onDismiss = async () => {
    setBusy(true);
    setMessage(null);
    try {
      await api(`${path}/resolve`, ZAgentQuestion, { method: 'POST', body: {} });
      props.onResolved('Question dismissed.');
    } catch (error) {
      setMessage(error instanceof Error ? error.message : 'Could not dismiss the question.');
      setBusy(false);
    }
  };
  const onTest = async () => {
    setBusy(true);
    setMessage(null);
    try {
      setNow(await testQuestion(props.agentId, question.question.slice(0, 500)));
    } catch (error) {
      setMessage(error instanceof Error ? error.message : 'Could not test the question.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <li class="row-card">
      <div class="row-title">
        <h2 class="q-row-title">{question.question}</h2>
      </div>
      <div class="q-badges">
        {question.reasons.map((reason) => (
          <span key={reason} class={`badge ${reason === 'rated_down' ? 'bad' : 'warn'}`}>
            {REASON_TEXT[reason]}
          </span>
        ))}
        {question.resolution ? <span class="badge ok">{RESOLUTION_TEXT[question.resolution]}</span> : null}
      </div>
      <p class="q-quote">
        <span class="visually-hidden">The agent answered: </span>
        {question.answer || '(no answer)'}
      </p>
      <dl class="row-facts">
        <div>
          <dt>Asked</dt>
          <dd>{dateText(question.created_at)}</dd>
        </div>
        {question.resolved_at ? (
          <div>
            <dt>Resolved</dt>
            <dd>{dateText(question.resolved_at)}</dd>
          </div>
        ) : null}
      </dl>
      <details class="q-chunks">
        <summary>Chunks behind the answer ({question.chunks.length})</summary>
        {question.chunks.length === 0 ? (
          <p class="muted">The answer used no passage: retrieval found nothing for it.</p>
        ) : (
          <ol>
            {question.chunks.map((chunk) => (
              <li key={chunk.chunk_id}>
                <p class="q-chunk-head">
                  <strong>{chunk.title ?? 'A passage removed since'}</strong>
                  <span class="muted">score {scoreText(chunk.score)}</span>
                </p>
                {chunk.url ? <p class="muted q-url">{chunk.url}</p> : null}
              </li>
            ))}
          </ol>
        )}
        {can('knowledge.edit') ? (
          <div class="actions q-test-now">
            <button type="button" class="button ghost small" disabled={isBusy} onClick={() => void onTest()}>
              What would answer it now?
            </button>
          </div>
        ) : null}
        <div aria-live="polite">{now ? <TestResult result={now} /> : null}</div>
      </details>
      {mode === 'correction' ? (
        <ToCorrection
          path={path}
          question={question}
          onCancel={() => setMode('view')}
          onDone={() => props.onResolved('Saved as a correction: the agent gives it from now on.')}
        />
      ) : null}
      {mode === 'article' ? (
        <ToArticle
          path={path}
          question={question}
          onCancel={() => setMode('view')}
          onDone={() => props.onResolved('Published as a knowledge-base article; the question is resolved.')}
        />
      ) : null}
      {mode === 'dismiss' ? (
        <fieldset class="confirm">
          <legend class="visually-hidden">Dismiss the question</legend>
          <p>Dismiss this question without an answer? It moves to the resolved ones.</p>
          <div class="actions">
            <button type="button" class="button danger" disabled={isBusy} onClick={() => void onDismiss()}>
              {isBusy ? 'Dismissing…' : 'Yes, dismiss it'}
            </button>
            <button type="button" class="button ghost" onClick={() => setMode('view')}>
              Keep it open
            </button>
          </div>
        </fieldset>
      ) : null}
      {isOpen && mode === 'view' && can('knowledge.edit') ? (
        <div class="actions">
          <button type="button" class="button primary" onClick={() => setMode('correction')}>
            Answer with a correction
          </button>
          <button type="button" class="button ghost" onClick={() => setMode('article')}>
            Write a KB article
          </button>
          <button type="button" class="button ghost" onClick={() => setMode('dismiss')}>
            Dismiss…
          </button>
        </div>
      ) : null}
      {question.resolution === 'correction' ? (
        <p class="muted">
          See it among the <a href={correctionsPath(props.agentId)}>corrections</a>.
        </p>
      ) : null}
      {message ? <FormMessage kind="error">{message}</FormMessage> : null}
    </li>
  );
}

/** Field errors of a `question`/`answer`/`title`/`body` form on this row's own field names. */
function prefixed(errors: FieldErrors, key: string): FieldErrors {
  return Object.fromEntries(Object.entries(errors).map(([field, messages]) => [`${key}-${field}`, messages]));
}

function ToCorrection(props: {
  path: string;
  question: TAgentQuestion;
  onCancel: () => void;
  onDone: () => void;
}) {
  const [question, setQuestion] = useState(props.question.question);
  const [answer, setAnswer] = useState(draftAnswerOf(props.question));
  const form = useForm();
  const key = `q${props.question.id}`;
  const heading = useFocus();
  const onSubmit = (event: Event) => {
    event.preventDefault();
    void form.submit({
      check: () =>
        ZQuestionToCorrection.safeParse({
          answer,
          ...(question.trim() !== props.question.question ? { question } : {}),
        }),
      send: async (body) => {
        await api(`${props.path}/correction`, ZQuestionResolution, { method: 'POST', body });
        props.onDone();
      },
      errorsFor: (errors) =>
        prefixed(
          {
            ...errors,
            ...(errors.answer && !answer.trim()
              ? { answer: ['Write the answer the agent should give.'] }
              : {}),
            ...(errors.question && !question.trim() ? { question: ['Write the question.'] } : {}),
          },
          key,
        ),
      fallback: 'Could not save the correction.',
    });
  };
  return (
    <form class="form-card q-resolve" onSubmit={onSubmit} noValidate>
      <h3 ref={heading} tabIndex={-1}>
        Answer with a correction
      </h3>
      <Field
        name={`${key}-question`}
        label="Question"
        hint="Questions worded close to it get this answer too."
        value={question}
        onInput={setQuestion}
        errors={form.errors}
      />
      <TextArea
        name={`${key}-answer`}
        label="Answer"
        rows={4}
        value={answer}
        onInput={setAnswer}
        errors={form.errors}
      />
      {form.notice ? <FormMessage kind={form.notice.kind}>{form.notice.text}</FormMessage> : null}
      <div class="actions">
        <button type="submit" class="button primary" disabled={form.isBusy}>
          {form.isBusy ? 'Saving…' : 'Save correction and resolve'}
        </button>
        <button type="button" class="button ghost" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function ToArticle(props: {
  path: string;
  question: TAgentQuestion;
  onCancel: () => void;
  onDone: () => void;
}) {
  const [title, setTitle] = useState(props.question.question.slice(0, 300));
  const [body, setBody] = useState(draftAnswerOf(props.question));
  const form = useForm();
  const key = `a${props.question.id}`;
  const heading = useFocus();
  const onSubmit = (event: Event) => {
    event.preventDefault();
    void form.submit({
      check: () => ZQuestionToKbArticle.safeParse({ title, body }),
      send: async (input) => {
        await api(`${props.path}/kb-article`, ZQuestionResolution, { method: 'POST', body: input });
        props.onDone();
      },
      errorsFor: (errors) =>
        prefixed(
          {
            ...errors,
            ...(errors.title && !title.trim() ? { title: ['Give the article a title.'] } : {}),
            ...(errors.body && !body.trim() ? { body: ['Write the article.'] } : {}),
          },
          key,
        ),
      fallback: 'Could not publish the article.',
    });
  };
  return (
    <form class="form-card q-resolve" onSubmit={onSubmit} noValidate>
      <h3 ref={heading} tabIndex={-1}>
        Write a knowledge-base article
      </h3>
      <p class="muted">Published at once on your public knowledge base, and every agent answers from it.</p>
      <Field name={`${key}-title`} label="Title" value={title} onInput={setTitle} errors={form.errors} />
      <TextArea
        name={`${key}-body`}
        label="Text (Markdown)"
        rows={6}
        value={body}
        onInput={setBody}
        errors={form.errors}
      />
      {form.notice ? <FormMessage kind={form.notice.kind}>{form.notice.text}</FormMessage> : null}
      <div class="actions">
        <button type="submit" class="button primary" disabled={form.isBusy}>
          {form.isBusy ? 'Publishing…' : 'Publish and resolve'}
        </button>
        <button type="button" class="button ghost" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A heading that takes the focus when its form opens (keyboard users land in the form). */
function useFocus() {
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnShow(heading);
  return heading;
}
