import {
  CRAWL_DEFAULT_DEPTH,
  CRAWL_DEFAULT_PAGES,
  CRAWL_MAX_DEPTH,
  CRAWL_MAX_PAGES,
  type SqlEngine,
  type TSourceCreate,
  type TSqlTestResult,
  ZSource,
  ZSourceCreateCrawl,
  ZSourceCreateSitemap,
  ZSourceCreateSql,
  ZSourceCreateText,
  ZSourceCreateUrl,
  ZSqlTestResult,
} from '@service/contract';
import type { TargetedSubmitEvent } from 'preact';
import { useState } from 'preact/hooks';
import type { z } from 'zod';
import { api } from '../api';
import { Field, FormMessage, TextArea } from '../components/field';
import { PlusIcon } from '../components/icons';
import { useForm } from '../components/use-form';
import { SqlFields, SqlPreview } from './knowledge-sql';

type Kind = 'crawl' | 'sitemap' | 'url' | 'text' | 'sql';
const KINDS: ReadonlyArray<{ kind: Kind; label: string; hint: string }> = [
  { kind: 'crawl', label: 'Crawl a site', hint: 'Follows links from a start page on the same site.' },
  { kind: 'sitemap', label: 'Sitemap', hint: 'Reads the pages a sitemap.xml lists.' },
  { kind: 'url', label: 'One page', hint: 'Reads a single web page.' },
  { kind: 'text', label: 'Text', hint: 'Paste text the agent should know.' },
  {
    kind: 'sql',
    label: 'SQL database',
    hint: 'Each row of one read-only SELECT on PostgreSQL or MySQL/MariaDB becomes a document.',
  },
];

export type Draft = {
  name: string;
  url: string;
  maxPages: string;
  maxDepth: string;
  text: string;
  engine: SqlEngine;
  host: string;
  port: string;
  database: string;
  user: string;
  password: string;
  query: string;
  ssl: boolean;
  titleColumn: string;
  urlColumn: string;
};

/** The body of a new source of `kind`, checked with the contract's own schema. */
function bodyOf(kind: Kind, draft: Draft): z.ZodSafeParseResult<TSourceCreate> {
  const name = draft.name.trim() === '' ? {} : { name: draft.name };
  const pages = (value: string, fallback: number) => (value.trim() === '' ? fallback : Number(value));
  const optional = (key: string, value: string) => (value.trim() === '' ? {} : { [key]: value });
  if (kind === 'sql') {
    return ZSourceCreateSql.safeParse({
      type: 'sql',
      ...name,
      engine: draft.engine,
      host: draft.host,
      ...(draft.port.trim() === '' ? {} : { port: Number(draft.port) }),
      database: draft.database,
      user: draft.user,
      password: draft.password,
      query: draft.query,
      ssl: draft.ssl,
      ...optional('title_column', draft.titleColumn),
      ...optional('url_column', draft.urlColumn),
    });
  }
  if (kind === 'text') return ZSourceCreateText.safeParse({ type: 'text', ...name, text: draft.text });
  if (kind === 'url') return ZSourceCreateUrl.safeParse({ type: 'url', ...name, url: draft.url.trim() });
  if (kind === 'sitemap') {
    return ZSourceCreateSitemap.safeParse({
      type: 'sitemap',
      ...name,
      url: draft.url.trim(),
      max_pages: pages(draft.maxPages, CRAWL_DEFAULT_PAGES),
    });
  }
  return ZSourceCreateCrawl.safeParse({
    type: 'crawl',
    ...name,
    url: draft.url.trim(),
    max_pages: pages(draft.maxPages, CRAWL_DEFAULT_PAGES),
    max_depth: pages(draft.maxDepth, CRAWL_DEFAULT_DEPTH),
  });
}

const EMPTY: Draft = {
  name: '',
  url: '',
  maxPages: '',
  maxDepth: '',
  text: '',
  engine: 'postgres',
  host: '',
  port: '',
  database: '',
  user: '',
  password: '',
  query: '',
  ssl: false,
  titleColumn: '',
  urlColumn: '',
};

export function AddSource(props: { base: string; onAdded: () => Promise<void> }) {
  const [kind, setKind] = useState<Kind>('crawl');
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const { errors, notice, setNotice, isBusy, submit, clear } = useForm();
  const set = (key: keyof Draft) => (value: string) => setDraft({ ...draft, [key]: value });
  const [preview, setPreview] = useState<TSqlTestResult | null>(null);
  const [isTesting, setTesting] = useState(false);

  const testConnection = async () => {
    setPreview(null);
    await submit({
      check: () => bodyOf('sql', draft),
      send: async (body) =>
        setPreview(await api(`${props.base}/sources/test-sql`, ZSqlTestResult, { method: 'POST', body })),
      alwaysShowMessage: true,
      fallback: 'Could not test the connection.',
      busy: setTesting,
    });
  };

  const onSubmit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    await submit({
      check: () => bodyOf(kind, draft),
      send: async (body) => {
        const source = await api(`${props.base}/sources`, ZSource, { method: 'POST', body });
        setDraft(EMPTY);
        setNotice({ kind: 'info', text: `Added “${source.name}”. Its progress shows in the list above.` });
        await props.onAdded();
      },
      // A refused URL or connection is said in the message as well as beside its field.
      alwaysShowMessage: true,
      fallback: 'Could not add the source.',
    });
  };

  const hint = KINDS.find((entry) => entry.kind === kind)?.hint ?? '';
  return (
    <form class="card add-source" onSubmit={onSubmit} noValidate aria-labelledby="add-title">
      <h2 id="add-title">Add a source</h2>
      <fieldset class="kinds">
        <legend>What to add</legend>
        {KINDS.map((entry) => (
          <label key={entry.kind} class={`kind${kind === entry.kind ? ' selected' : ''}`}>
            <input
              type="radio"
              name="kind"
              value={entry.kind}
              checked={kind === entry.kind}
              onChange={() => {
                setKind(entry.kind);
                clear();
              }}
            />
            <span>{entry.label}</span>
          </label>
        ))}
      </fieldset>
      <p class="muted">{hint}</p>
      {kind === 'text' ? (
        <TextArea
          name="text"
          label="Text"
          rows={6}
          value={draft.text}
          onInput={set('text')}
          errors={errors}
        />
      ) : kind === 'sql' ? (
        <SqlFields draft={draft} set={set} setSsl={(ssl) => setDraft({ ...draft, ssl })} errors={errors} />
      ) : (
        <Field
          name="url"
          type="url"
          label={kind === 'sitemap' ? 'Sitemap address' : kind === 'crawl' ? 'Start page' : 'Page address'}
          value={draft.url}
          onInput={set('url')}
          errors={errors}
          hint={
            kind === 'sitemap'
              ? 'For example https://example.com/sitemap.xml'
              : 'For example https://example.com/'
          }
        />
      )}
      {kind === 'crawl' || kind === 'sitemap' ? (
        <div class="field-row">
          <Field
            name="max_pages"
            label="Most pages"
            inputMode="numeric"
            value={draft.maxPages}
            onInput={set('maxPages')}
            errors={errors}
            hint={`1 to ${CRAWL_MAX_PAGES}; ${CRAWL_DEFAULT_PAGES} if empty`}
          />
          {kind === 'crawl' ? (
            <Field
              name="max_depth"
              label="Link depth"
              inputMode="numeric"
              value={draft.maxDepth}
              onInput={set('maxDepth')}
              errors={errors}
              hint={`0 to ${CRAWL_MAX_DEPTH}; ${CRAWL_DEFAULT_DEPTH} if empty`}
            />
          ) : null}
        </div>
      ) : null}
      <Field name="name" label="Name (optional)" value={draft.name} onInput={set('name')} errors={errors} />
      {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
      {kind === 'sql' && preview ? <SqlPreview result={preview} /> : null}
      <div class="actions">
        {kind === 'sql' ? (
          <button
            type="button"
            class="button ghost"
            onClick={() => void testConnection()}
            disabled={isTesting}
          >
            {isTesting ? 'Testing…' : 'Test connection'}
          </button>
        ) : null}
        <button type="submit" class="button primary" disabled={isBusy}>
          <PlusIcon size={18} />
          <span>{isBusy ? 'Adding…' : 'Add source'}</span>
        </button>
      </div>
    </form>
  );
}
