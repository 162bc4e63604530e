import {
  PLAYGROUND_HISTORY_MAX,
  type TCitation,
  type TPlaygroundChunk,
  type TPlaygroundTurn,
  WIDGET_MESSAGE_MAX,
  ZPlaygroundFrame,
  ZPlaygroundRequest,
} from '@service/contract';
import type { TargetedEvent } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, apiStream, fieldErrorsOf, waitMessage } from '../api';
import { FormMessage } from '../components/field';
import { AlertIcon } from '../components/icons';
import { messageOf } from './knowledge-shared';
import { SourcesUsed } from './playground-sources';

/** One question and its answer as the page keeps them (the service stores nothing). */
type Turn = {
  id: number;
  question: string;
  answer: string;
  chunks: TPlaygroundChunk[];
  citations: TCitation[];
  blocks: string[];
  state: 'streaming' | 'done' | 'failed';
  error: string | null;
};

let nextTurn = 0;

/** The turns before the next question, as the route takes them: the latest answered ones. */
function historyOf(turns: readonly Turn[]): TPlaygroundTurn[] {
  const history: TPlaygroundTurn[] = [];
  for (const turn of turns) {
    if (turn.state !== 'done' || turn.answer.trim() === '') continue;
    history.push({ role: 'visitor', content: turn.question.slice(0, WIDGET_MESSAGE_MAX) });
    history.push({ role: 'assistant', content: turn.answer.trim().slice(0, WIDGET_MESSAGE_MAX) });
  }
  return history.slice(-PLAYGROUND_HISTORY_MAX);
}

/** What a refusal tells the user: the wait of a 429, else the service's message. */
function refusalOf(error: unknown): string {
  if (error instanceof ApiError && error.status === 429) return waitMessage(error.retryAfter);
  return messageOf(error, 'The question could not be asked.');
}

/**
 * The playground's conversation: ask as a visitor would, read the answer as it streams in (as
 * text: never markup), and under each answer the chunks it used. Follow-ups carry the earlier
 * turns; "New conversation" forgets them.
 */
export function PlaygroundChat(props: { agentId: string }) {
  const path = `/agents/${encodeURIComponent(props.agentId)}/playground`;
  const [turns, setTurns] = useState<Turn[]>([]);
  const [question, setQuestion] = useState('');
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [notice, setNotice] = useState<string | null>(null);
  const [announce, setAnnounce] = useState('');
  const stopper = useRef<AbortController | null>(null);
  const isBusy = turns.some((turn) => turn.state === 'streaming');
  useEffect(() => () => stopper.current?.abort(), []);

  const update = (id: number, change: (turn: Turn) => Partial<Turn>) =>
    setTurns((current) => current.map((turn) => (turn.id === id ? { ...turn, ...change(turn) } : turn)));

  const ask = async () => {
    if (isBusy) return;
    const body = ZPlaygroundRequest.safeParse({ question, history: historyOf(turns) });
    if (!body.success) {
      setErrors(fieldErrorsOf(body.error));
      return;
    }
    setErrors({});
    setNotice(null);
    const id = nextTurn++;
    const turn: Turn = {
      id,
      question: body.data.question,
      answer: '',
      chunks: [],
      citations: [],
      blocks: [],
      state: 'streaming',
      error: null,
    };
    setTurns((current) => [...current, turn]);
    setQuestion('');
    setAnnounce('');
    const controller = new AbortController();
    stopper.current = controller;
    let ended = false;
    try {
      await apiStream(
        path,
        body.data,
        (raw) => {
          const frame = ZPlaygroundFrame.safeParse(raw);
          if (!frame.success) return;
          const { event, data } = frame.data;
          if (event === 'trace') update(id, () => ({ chunks: data.chunks }));
          else if (event === 'token') update(id, (current) => ({ answer: current.answer + data.t }));
          else if (event === 'block') update(id, (current) => ({ blocks: [...current.blocks, data.type] }));
          else if (event === 'done') {
            ended = true;
            update(id, () => ({ answer: data.text, citations: data.citations, state: 'done' }));
            setAnnounce('Answer complete.');
          } else if (event === 'error') {
            ended = true;
            update(id, () => ({ state: 'failed', error: data.message }));
          }
        },
        controller.signal,
      );
      if (!ended)
        update(id, () => ({ state: 'failed', error: 'The answer stopped before it was finished.' }));
    } catch (error) {
      if (error instanceof ApiError && error.status >= 400) {
        // Refused before any answer (a 429 included): the question goes back in the box, with the reason.
        setTurns((current) => current.filter((candidate) => candidate.id !== id));
        setQuestion(body.data.question);
        setErrors(error.errors);
        if (error.status !== 401) setNotice(refusalOf(error));
      } else {
        update(id, () => ({ state: 'failed', error: refusalOf(error) }));
      }
    } finally {
      stopper.current = null;
    }
  };

  const onSubmit = (event: Event) => {
    event.preventDefault();
    void ask();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    // Enter asks, Shift+Enter starts a new line (as in the widget).
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void ask();
    }
  };
  const questionErrors = [...(errors.question ?? []), ...(errors.history ?? [])];

  return (
    <div class="card pg-chat">
      {turns.length === 0 ? (
        <p class="muted pg-intro">
          Ask what a visitor would. Each answer comes from the same path as the widget’s, and nothing here
          counts as a visitor conversation.
        </p>
      ) : (
        <ol class="pg-turns" aria-label="Conversation">
          {turns.map((turn) => (
            <li key={turn.id} class="pg-turn">
              <p class="pg-question">
                <span class="sr-only">You asked: </span>
                {turn.question}
              </p>
              <div class="pg-answer" aria-busy={turn.state === 'streaming'}>
                <span class="sr-only">Agent answered: </span>
                {turn.answer === '' && turn.state === 'streaming' ? (
                  <span class="muted">Thinking…</span>
                ) : (
                  <p class="pg-answer-text">{turn.answer}</p>
                )}
                {turn.error ? (
                  <p class="pg-turn-error">
                    <AlertIcon size={16} />
                    <span>{turn.error}</span>
                  </p>
                ) : null}
                {turn.blocks.length > 0 ? (
                  <p class="muted pg-blocks">Also shown to the visitor: {turn.blocks.join(', ')}</p>
                ) : null}
              </div>
              {turn.state === 'streaming' && turn.chunks.length === 0 ? null : (
                <SourcesUsed turnId={turn.id} chunks={turn.chunks} citations={turn.citations} />
              )}
            </li>
          ))}
        </ol>
      )}
      <p class="sr-only" role="status">
        {announce}
      </p>
      {notice ? <FormMessage kind="error">{notice}</FormMessage> : null}
      <form class="pg-form" onSubmit={onSubmit} noValidate>
        <div class={`field${questionErrors.length > 0 ? ' has-error' : ''}`}>
          <label for="pg-question">Your question</label>
          <textarea
            id="pg-question"
            name="question"
            rows={2}
            value={question}
            maxLength={WIDGET_MESSAGE_MAX}
            onInput={(event: TargetedEvent<HTMLTextAreaElement>) => setQuestion(event.currentTarget.value)}
            onKeyDown={onKeyDown}
            aria-invalid={questionErrors.length > 0 ? 'true' : undefined}
            aria-describedby={questionErrors.length > 0 ? 'pg-question-error' : 'pg-question-hint'}
          />
          {questionErrors.length > 0 ? (
            <p class="field-error" id="pg-question-error">
              <AlertIcon size={16} />
              <span>{questionErrors.join(' ')}</span>
            </p>
          ) : (
            <p class="hint" id="pg-question-hint">
              Enter asks; Shift+Enter starts a new line.
            </p>
          )}
        </div>
        <div class="actions">
          <button type="submit" class="button primary" disabled={isBusy}>
            Ask
          </button>
          {isBusy ? (
            <button type="button" class="button ghost" onClick={() => stopper.current?.abort()}>
              Stop
            </button>
          ) : null}
          {turns.length > 0 && !isBusy ? (
            <button type="button" class="button ghost" onClick={() => setTurns([])}>
              New conversation
            </button>
          ) : null}
        </div>
      </form>
    </div>
  );
}
