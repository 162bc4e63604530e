import {
  GOLDEN_ITEMS_PER_AGENT_MAX,
  type TGoldenItem,
  ZGoldenItem,
  ZGoldenItemCreate,
  ZGoldenItemUpdate,
} from '@service/contract';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiVoid } from '../api';
import { Field, FormMessage, TextArea } from '../components/field';
import { PlusIcon } from '../components/icons';
import { LoadMore } from '../components/load-more';
import { useFocusOnShow } from '../components/use-focus-on-show';
import { useForm } from '../components/use-form';
import { usePagedList } from '../paged-list';
import { can } from '../session';
import { ImportForm } from './quality-golden-import';
import { expectedOf, onFields } from './quality-shared';

const ORIGIN_TEXT: Record<TGoldenItem['origin'], string> = {
  manual: 'Written here',
  question: 'From a resolved question',
  correction: 'From a correction',
};

/** The agent's golden set: the questions a run measures, each with the pages that answer it. */
export function GoldenSet(props: { agentId: string; onCount: (count: number) => void }) {
  const base = `/agents/${encodeURIComponent(props.agentId)}/golden`;
  const list = usePagedList(`${base}?order=desc`, ZGoldenItem, 'Could not load the golden set.');
  const [adding, setAdding] = useState<'manual' | 'import' | null>(null);
  const [done, setDone] = useState('');
  const load = list.reload;
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (list.items) props.onCount(list.items.length);
  }, [list.items]);
  const items = list.items;
  const onAdded = () => {
    setAdding(null);
    setDone('Question added to the golden set.');
    void load();
  };
  return (
    <>
      <div class="page-head">
        <h2 id="golden-title">Golden set</h2>
        {adding === null && can('knowledge.edit') ? (
          <div class="actions">
            <button type="button" class="button primary" onClick={() => setAdding('manual')}>
              <PlusIcon size={18} />
              <span>Add a question</span>
            </button>
            <button type="button" class="button ghost" onClick={() => setAdding('import')}>
              Import…
            </button>
          </div>
        ) : null}
      </div>
      <p class="muted">
        Up to {GOLDEN_ITEMS_PER_AGENT_MAX} questions, each with the page(s) that should answer it. Import the
        questions you have already fixed: resolved questions and corrections.
      </p>
      <p class="copy-status" role="status">
        {done}
      </p>
      {adding === 'manual' ? (
        <GoldenForm base={base} onSaved={onAdded} onCancel={() => setAdding(null)} />
      ) : null}
      {adding === 'import' ? (
        <ImportForm agentId={props.agentId} base={base} onSaved={onAdded} onCancel={() => setAdding(null)} />
      ) : null}
      {list.error ? <FormMessage kind="error">{list.error}</FormMessage> : null}
      {items?.length === 0 && adding === null ? (
        <div class="card empty-state">
          <h3>No golden questions yet</h3>
          <p class="muted">
            Add the questions your visitors ask most, with the page that answers each. Five to twenty are
            enough to notice when a change to the knowledge makes answers worse.
          </p>
        </div>
      ) : null}
      {items && items.length > 0 ? (
        <ul class="row-list" aria-labelledby="golden-title">
          {items.map((item) => (
            <GoldenRow
              key={item.id}
              base={base}
              item={item}
              onUpdated={(next) => {
                list.replace(next);
                setDone('Question updated.');
              }}
              onDeleted={() => {
                setDone('Question removed from the golden set.');
                void load();
              }}
            />
          ))}
        </ul>
      ) : null}
      <LoadMore list={list} noun="questions" />
    </>
  );
}

function GoldenForm(props: {
  base: string;
  item?: TGoldenItem;
  onSaved: (item: TGoldenItem) => void;
  onCancel: () => void;
}) {
  const { item } = props;
  const [question, setQuestion] = useState(item?.question ?? '');
  const [expected, setExpected] = useState(
    item ? [...item.expected_urls, ...item.expected_document_ids].join('\n') : '',
  );
  const [note, setNote] = useState(item?.note ?? '');
  const form = useForm();
  const key = item ? `g${item.id}` : 'golden';
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnShow(heading);
  const onSubmit = (event: Event) => {
    event.preventDefault();
    const input = { question, ...expectedOf(expected), note: note.trim() ? note.trim() : null };
    void form.submit({
      check: () => (item ? ZGoldenItemUpdate.safeParse(input) : ZGoldenItemCreate.safeParse(input)),
      send: async (body) => {
        const path = item ? `${props.base}/${encodeURIComponent(item.id)}` : props.base;
        props.onSaved(await api(path, ZGoldenItem, { method: item ? 'PATCH' : 'POST', body }));
      },
      errorsFor: (errors) =>
        onFields(
          errors.question && !question.trim() ? { ...errors, question: ['Write the question.'] } : errors,
          key,
        ),
      fallback: 'Could not save the question.',
    });
  };
  return (
    <form class="card form-card" onSubmit={onSubmit} noValidate>
      <h3 ref={heading} tabIndex={-1}>
        {item ? 'Edit golden question' : 'New golden question'}
      </h3>
      <Field
        name={`${key}-question`}
        label="Question"
        value={question}
        onInput={setQuestion}
        errors={form.errors}
      />
      <TextArea
        name={`${key}-expected`}
        label="Expected pages"
        hint="One a line: the page’s address (https://…), or a document id. A run passes when one of them comes up."
        rows={3}
        value={expected}
        onInput={setExpected}
        errors={form.errors}
      />
      <Field
        name={`${key}-note`}
        label="Note (optional)"
        value={note}
        onInput={setNote}
        errors={form.errors}
      />
      {form.notice ? <FormMessage kind={form.notice.kind}>{form.notice.text}</FormMessage> : null}
      <div class="actions">
        <button type="submit" class="button primary" disabled={form.isBusy}>
          {form.isBusy ? 'Saving…' : 'Save question'}
        </button>
        <button type="button" class="button ghost" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function GoldenRow(props: {
  base: string;
  item: TGoldenItem;
  onUpdated: (item: TGoldenItem) => void;
  onDeleted: () => void;
}) {
  const { item } = props;
  const [mode, setMode] = useState<'view' | 'edit' | 'delete'>('view');
  const [isBusy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const onDelete = async () => {
    setBusy(true);
    setMessage(null);
    try {
      await apiVoid(`${props.base}/${encodeURIComponent(item.id)}`, { method: 'DELETE' });
      props.onDeleted();
    } catch (error) {
      setMessage(error instanceof Error ? error.message : 'Could not delete the question.');
      setBusy(false);
    }
  };
  if (mode === 'edit') {
    return (
      <li>
        <GoldenForm
          base={props.base}
          item={item}
          onSaved={(next) => {
            setMode('view');
            props.onUpdated(next);
          }}
          onCancel={() => setMode('view')}
        />
      </li>
    );
  }
  const pages = [...item.expected_urls, ...item.expected_document_ids];
  return (
    <li class="row-card">
      <div class="row-title">
        <h3>{item.question}</h3>
        <span class="badge draft">{ORIGIN_TEXT[item.origin]}</span>
      </div>
      <dl class="row-facts">
        <div>
          <dt>Expected {pages.length === 1 ? 'page' : 'pages'}</dt>
          {pages.map((page) => (
            <dd key={page}>{page}</dd>
          ))}
        </div>
        {item.note ? (
          <div>
            <dt>Note</dt>
            <dd>{item.note}</dd>
          </div>
        ) : null}
      </dl>
      {mode === 'delete' ? (
        <fieldset class="confirm">
          <legend class="visually-hidden">Remove the question</legend>
          <p>Remove this question from the golden set? Earlier runs keep their results.</p>
          <div class="actions">
            <button type="button" class="button danger" disabled={isBusy} onClick={() => void onDelete()}>
              {isBusy ? 'Removing…' : 'Yes, remove it'}
            </button>
            <button type="button" class="button ghost" onClick={() => setMode('view')}>
              Keep it
            </button>
          </div>
        </fieldset>
      ) : !can('knowledge.edit') ? null : (
        <div class="actions">
          <button type="button" class="button ghost" onClick={() => setMode('edit')}>
            Edit<span class="visually-hidden"> “{item.question}”</span>
          </button>
          <button type="button" class="button ghost" onClick={() => setMode('delete')}>
            Remove…<span class="visually-hidden"> “{item.question}”</span>
          </button>
        </div>
      )}
      {message ? <FormMessage kind="error">{message}</FormMessage> : null}
    </li>
  );
}
