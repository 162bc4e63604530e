import { type TCorrectionTestResult, ZCorrectionTestRequest, ZCorrectionTestResult } from '@service/contract';
import { useState } from 'preact/hooks';
import { api } from '../api';
import { Field, FormMessage } from '../components/field';
import { useForm } from '../components/use-form';
import { decisionText, scoreText } from './quality-shared';

/** How much of a chunk's text a result shows. */
const EXCERPT_CHARS = 240;

/** Asks what would answer `question` now: a correction (and its score), else the chunks retrieval finds. */
export function testQuestion(agentId: string, question: string): Promise<TCorrectionTestResult> {
  return api(`/agents/${encodeURIComponent(agentId)}/corrections/test`, ZCorrectionTestResult, {
    method: 'POST',
    body: { question },
  });
}

/** "Test a question": a visitor's question in, what would answer it and every score out. */
export function CorrectionTest(props: { agentId: string }) {
  const [question, setQuestion] = useState('');
  const [result, setResult] = useState<TCorrectionTestResult | null>(null);
  const form = useForm();
  const onSubmit = (event: Event) => {
    event.preventDefault();
    void form.submit({
      check: () => ZCorrectionTestRequest.safeParse({ question }),
      send: async (body) => setResult(await testQuestion(props.agentId, body.question)),
      // The page has other question fields: this one's id (and errors) are its own.
      errorsFor: ({ question: asked, ...rest }) =>
        asked
          ? { ...rest, test_question: question.trim() ? asked : ['Type the question a visitor would ask.'] }
          : rest,
      fallback: 'Could not test the question.',
    });
  };
  return (
    <form class="card form-card" onSubmit={onSubmit} noValidate aria-labelledby="test-title">
      <h2 id="test-title">Test a question</h2>
      <p class="muted">
        See what would answer a visitor’s question right now: one of your corrections, or the passages the
        agent finds in its knowledge, with their scores.
      </p>
      <div class="q-inline">
        <Field
          name="test_question"
          label="Visitor’s question"
          value={question}
          onInput={setQuestion}
          errors={form.errors}
        />
        <button type="submit" class="button primary" disabled={form.isBusy}>
          {form.isBusy ? 'Testing…' : 'Test'}
        </button>
      </div>
      {form.notice ? <FormMessage kind={form.notice.kind}>{form.notice.text}</FormMessage> : null}
      <div aria-live="polite">{result ? <TestResult result={result} /> : null}</div>
    </form>
  );
}

/** What would answer a question: the decision, the closest correction's score, the chunks. */
export function TestResult(props: { result: TCorrectionTestResult }) {
  const { result } = props;
  const best = result.best_correction;
  return (
    <div class="q-result">
      <p class="q-decision">
        <span class={`badge ${result.decision === 'no_match' ? 'warn' : 'ok'}`}>
          {result.decision === 'correction'
            ? 'Correction'
            : result.decision === 'chunks'
              ? 'Knowledge'
              : 'No match'}
        </span>
        <span>{decisionText(result)}</span>
      </p>
      {best ? (
        <div class={`q-match${result.decision === 'correction' ? ' is-used' : ''}`}>
          <p class="muted">
            {result.decision === 'correction' ? 'Answered by' : 'Closest correction'} · score{' '}
            <strong>{scoreText(best.score)}</strong> (answers from {scoreText(result.threshold)})
          </p>
          <p class="q-quote">{best.question}</p>
          <p>{best.answer}</p>
        </div>
      ) : (
        <p class="muted">No correction yet to compare with.</p>
      )}
      {result.chunks.length > 0 ? (
        <details class="q-chunks">
          <summary>Passages retrieval finds ({result.chunks.length})</summary>
          <ol>
            {result.chunks.map((chunk) => (
              <li key={chunk.chunk_id}>
                <p class="q-chunk-head">
                  <strong>{chunk.title || 'Untitled'}</strong>
                  <span class="muted">
                    score {scoreText(chunk.score)}
                    {chunk.from_text ? ' · matched by its words' : ''}
                  </span>
                </p>
                {chunk.url ? <p class="muted q-url">{chunk.url}</p> : null}
                <p class="q-excerpt">
                  {chunk.content.length > EXCERPT_CHARS
                    ? `${chunk.content.slice(0, EXCERPT_CHARS)}…`
                    : chunk.content}
                </p>
              </li>
            ))}
          </ol>
        </details>
      ) : (
        <p class="muted">Retrieval finds no passage for it.</p>
      )}
    </div>
  );
}
