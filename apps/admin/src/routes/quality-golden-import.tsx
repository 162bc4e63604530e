import { ZAgentQuestion, ZCorrection, ZGoldenItem, ZGoldenItemImport } from '@service/contract';
import { useEffect, useRef, useState } from 'preact/hooks';
import { z } from 'zod';
import { api } from '../api';
import { FormMessage, TextArea } from '../components/field';
import { useFocusOnShow } from '../components/use-focus-on-show';
import { useForm } from '../components/use-form';
import { expectedOf, onFields } from './quality-shared';
import { SelectField } from './select-field';

type Candidate = { id: string; label: string };

/** Makes a golden item of a resolved question or a correction (the question is theirs). */
export function ImportForm(props: {
  agentId: string;
  base: string;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const [origin, setOrigin] = useState<'question' | 'correction'>('question');
  const [candidates, setCandidates] = useState<Candidate[] | null>(null);
  const [originId, setOriginId] = useState('');
  const [expected, setExpected] = useState('');
  const form = useForm();
  const key = 'import';
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnShow(heading);
  useEffect(() => {
    setCandidates(null);
    const agent = `/agents/${encodeURIComponent(props.agentId)}`;
    const read: Promise<Candidate[]> =
      origin === 'question'
        ? api(`${agent}/questions?status=resolved&order=desc&limit=100`, z.array(ZAgentQuestion)).then(
            (rows) => rows.map((row) => ({ id: row.id, label: row.question })),
          )
        : api(`${agent}/corrections?order=desc&limit=100`, z.array(ZCorrection)).then((rows) =>
            rows.map((row) => ({ id: row.id, label: row.question })),
          );
    read
      .then((rows) => {
        setCandidates(rows);
        setOriginId(rows[0]?.id ?? '');
      })
      .catch((error: unknown) =>
        form.showError(error instanceof Error ? error.message : 'Could not load them.'),
      );
  }, [origin]);
  const onSubmit = (event: Event) => {
    event.preventDefault();
    const pages = expectedOf(expected);
    const input = {
      origin,
      origin_id: originId,
      ...(pages.expected_urls.length > 0 ? { expected_urls: pages.expected_urls } : {}),
      ...(pages.expected_document_ids.length > 0
        ? { expected_document_ids: pages.expected_document_ids }
        : {}),
    };
    void form.submit({
      check: () => ZGoldenItemImport.safeParse(input),
      send: async (body) => {
        await api(`${props.base}/import`, ZGoldenItem, { method: 'POST', body });
        props.onSaved();
      },
      errorsFor: (errors) =>
        onFields(
          errors.origin_id && !originId ? { ...errors, origin_id: ['Choose one to import.'] } : errors,
          key,
        ),
      fallback: 'Could not import it.',
    });
  };
  return (
    <form class="card form-card" onSubmit={onSubmit} noValidate>
      <h3 ref={heading} tabIndex={-1}>
        Import into the golden set
      </h3>
      <SelectField
        name={`${key}-origin`}
        label="From"
        value={origin}
        options={[
          { value: 'question', label: 'A resolved question' },
          { value: 'correction', label: 'A correction' },
        ]}
        onChange={(value) => setOrigin(value === 'correction' ? 'correction' : 'question')}
        errors={form.errors}
      />
      {candidates === null ? (
        <p class="muted" aria-busy="true">
          Loading…
        </p>
      ) : candidates.length === 0 ? (
        <p class="muted">
          {origin === 'question' ? 'No resolved question yet.' : 'No correction yet.'} Resolve one on the
          Questions tab, or write one on the Corrections tab.
        </p>
      ) : (
        <SelectField
          name={`${key}-origin_id`}
          label={origin === 'question' ? 'Question' : 'Correction'}
          value={originId}
          options={candidates.map((candidate) => ({ value: candidate.id, label: candidate.label }))}
          onChange={setOriginId}
          errors={form.errors}
        />
      )}
      <TextArea
        name={`${key}-expected`}
        label="Expected pages"
        hint="One a line. Optional for a question answered by a knowledge-base article: its page is the default."
        rows={3}
        value={expected}
        onInput={setExpected}
        errors={form.errors}
      />
      {form.notice ? <FormMessage kind={form.notice.kind}>{form.notice.text}</FormMessage> : null}
      <div class="actions">
        <button type="submit" class="button primary" disabled={form.isBusy || !candidates?.length}>
          {form.isBusy ? 'Importing…' : 'Import'}
        </button>
        <button type="button" class="button ghost" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
