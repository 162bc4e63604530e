import {
  CRAWL_DEFAULT_DEPTH,
  CRAWL_DEFAULT_PAGES,
  CRAWL_MAX_DEPTH,
  CRAWL_MAX_PAGES,
  DEFAULT_SQL_PORTS,
  type SqlEngine,
  type TAgent,
  type TSource,
  type TSqlTestResult,
  UPLOAD_ACCEPTED_EXTENSIONS,
  UPLOAD_FIELD,
  UPLOAD_MAX_FILES,
  ZAgent,
  ZSource,
  ZSourceCreateCrawl,
  ZSourceCreateSitemap,
  ZSourceCreateSql,
  ZSourceCreateText,
  ZSourceCreateUrl,
  ZSqlTestResult,
  ZUploadMetadata,
} from '@service/contract';
import type { TargetedEvent, TargetedSubmitEvent } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { z } from 'zod';
import { ApiError, api, apiUpload, apiVoid, fieldErrorsOf } from '../api';
import { Field, FormMessage } from '../components/field';
import { AlertIcon, PlusIcon, RefreshIcon, TrashIcon, UploadIcon } from '../components/icons';
import { PATHS } from '../paths';
import './knowledge.css';

/** Statuses of a source still on its way: the page asks again while one is shown. */
const BUSY = new Set(['queued', 'fetching', 'indexing']);
/** How often the list is read again while a source is busy. */
const POLL_MS = 1500;

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
const messageOf = (error: unknown, fallback: string) => (error instanceof Error ? error.message : fallback);

/** An agent's knowledge: its sources with live progress, adding one, uploads, re-index and delete. */
export function Knowledge() {
  const { params } = useRoute();
  const agentId = params.id ?? '';
  const base = `/agents/${encodeURIComponent(agentId)}`;
  const [agent, setAgent] = useState<TAgent | null>(null);
  const [sources, setSources] = useState<TSource[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  const loadSources = async () => {
    try {
      setSources(await api(`${base}/sources`, z.array(ZSource)));
      setLoadError(null);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      setLoadError(messageOf(error, 'Could not load the sources.'));
    }
  };

  useEffect(() => {
    api(base, ZAgent)
      .then(setAgent)
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 401) return;
        setLoadError(messageOf(error, 'Could not load the agent.'));
      });
    void loadSources();
  }, [base]);

  // Live progress: while any source is queued, fetching or indexing, read the list again.
  const isBusy = sources?.some((source) => BUSY.has(source.status)) ?? false;
  useEffect(() => {
    if (!isBusy) return;
    const timer = setTimeout(() => void loadSources(), POLL_MS);
    return () => clearTimeout(timer);
  }, [isBusy, sources]);

  return (
    <section class="page knowledge" aria-labelledby="knowledge-title">
      <div class="page-head">
        <div>
          <p class="muted crumb">
            <a href={PATHS.agents}>Agents</a> / {agent?.name ?? '…'}
          </p>
          <h1 id="knowledge-title">Knowledge</h1>
        </div>
      </div>
      <p class="muted">
        What the agent answers from: your site’s pages, a sitemap, single pages, pasted text and files.
      </p>
      {loadError ? <FormMessage kind="error">{loadError}</FormMessage> : null}
      <SourceTable
        sources={sources}
        onChanged={loadSources}
        onUpdated={(updated) =>
          setSources(
            (current) => current?.map((source) => (source.id === updated.id ? updated : source)) ?? null,
          )
        }
      />
      <AddSource base={base} onAdded={loadSources} />
      <Uploads base={base} sources={sources} onUploaded={loadSources} />
    </section>
  );
}

const STATUS_LABEL: Record<string, string> = {
  queued: 'Queued',
  fetching: 'Fetching',
  indexing: 'Indexing',
  indexed: 'Indexed',
  failed: 'Failed',
  ready: 'Synced',
};

const TYPE_LABEL: Record<string, string> = {
  crawl: 'Site crawl',
  sitemap: 'Sitemap',
  url: 'Page',
  text: 'Text',
  upload: 'File',
  sql: 'SQL',
  kb: 'Articles',
  site: 'Site posts',
  products: 'Products',
};

const dateOf = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : 'Never';

function SourceTable(props: {
  sources: TSource[] | null;
  onChanged: () => Promise<void>;
  onUpdated: (source: TSource) => void;
}) {
  const [deleting, setDeleting] = useState<TSource | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [pending, setPending] = useState<string | null>(null);

  const reindex = async (source: TSource) => {
    setPending(source.id);
    setMessage(null);
    try {
      // The answer (queued) shows at once; the list is read again while the source is busy.
      props.onUpdated(
        await api(`/sources/${encodeURIComponent(source.id)}/reindex`, ZSource, { method: 'POST' }),
      );
    } catch (error) {
      setMessage(messageOf(error, 'Could not re-index the source.'));
    } finally {
      setPending(null);
    }
  };

  if (props.sources === null) {
    return (
      <p class="muted" aria-busy="true">
        Loading sources…
      </p>
    );
  }
  if (props.sources.length === 0) {
    return (
      <div class="card empty-sources">
        <h2>No knowledge yet</h2>
        <p class="muted">
          Add your site below (crawl it, or give its sitemap), a single page or some text, or drop files such
          as a price list or your returns policy. The agent answers only from what is here.
        </p>
      </div>
    );
  }
  return (
    <div class="card sources-card">
      <h2 id="sources-title">Sources</h2>
      {message ? <FormMessage kind="error">{message}</FormMessage> : null}
      <table class="sources" aria-labelledby="sources-title">
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col">Status</th>
            <th scope="col">Pages</th>
            <th scope="col">Documents</th>
            <th scope="col">Last sync</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.sources.map((source) => (
            <SourceRow
              key={source.id}
              source={source}
              isPending={pending === source.id}
              onReindex={() => void reindex(source)}
              onDelete={() => setDeleting(source)}
            />
          ))}
        </tbody>
      </table>
      <DeleteDialog
        source={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={async () => {
          setDeleting(null);
          await props.onChanged();
        }}
      />
    </div>
  );
}

function SourceRow(props: {
  source: TSource;
  isPending: boolean;
  onReindex: () => void;
  onDelete: () => void;
}) {
  const { source } = props;
  const { progress } = source;
  const canReindex = source.type !== 'site' && source.type !== 'products';
  const run = progress.last_run;
  const fetched = ['crawl', 'sitemap', 'url', 'sql'].includes(source.type);
  const share = source.document_count > 0 ? progress.documents_indexed / source.document_count : 0;
  return (
    <tr data-source-id={source.id}>
      <td data-label="Source">
        <span class="source-name">{source.name}</span>
        <span class="muted source-type">{TYPE_LABEL[source.type] ?? source.type}</span>
      </td>
      <td data-label="Status">
        <span class={`status status-${source.status}`}>{STATUS_LABEL[source.status] ?? source.status}</span>
        {BUSY.has(source.status) && source.document_count > 0 ? (
          <progress
            class="bar"
            max={source.document_count}
            value={progress.documents_indexed}
            aria-label={`${source.name}: ${progress.documents_indexed} of ${source.document_count} documents indexed`}
          >
            {Math.round(share * 100)}%
          </progress>
        ) : null}
        {source.error ? (
          <p class="source-error">
            <AlertIcon size={16} />
            <span>{source.error}</span>
          </p>
        ) : null}
      </td>
      <td data-label="Pages">
        {fetched && run ? (
          <span>
            {run.fetched} read{run.skipped > 0 ? `, ${run.skipped} skipped` : ''}
            {run.removed > 0 ? `, ${run.removed} removed` : ''}
          </span>
        ) : (
          <span class="muted">{fetched ? 'Not yet' : '—'}</span>
        )}
      </td>
      <td data-label="Documents">
        {progress.documents_indexed} of {source.document_count} indexed
        {progress.documents_failed > 0 ? `, ${progress.documents_failed} failed` : ''}
      </td>
      <td data-label="Last sync">
        {fetched || source.last_synced_at ? (
          dateOf(source.last_synced_at ?? run?.finished_at ?? null)
        ) : (
          <span class="muted">Added {dateOf(source.created_at)}</span>
        )}
      </td>
      <td class="row-actions">
        {canReindex ? (
          <button
            type="button"
            class="button ghost small"
            onClick={props.onReindex}
            disabled={props.isPending || source.status === 'queued' || source.status === 'fetching'}
          >
            <RefreshIcon size={16} />
            <span>Re-index</span>
            <span class="sr-only"> {source.name}</span>
          </button>
        ) : null}
        <button type="button" class="button ghost small danger" onClick={props.onDelete}>
          <TrashIcon size={16} />
          <span>Delete</span>
          <span class="sr-only"> {source.name}</span>
        </button>
      </td>
    </tr>
  );
}

/** A modal confirmation (the native dialog: focus kept inside, Escape cancels). */
function DeleteDialog(props: {
  source: TSource | null;
  onClose: () => void;
  onDeleted: () => Promise<void>;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [isBusy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (props.source && !element.open) {
      setMessage(null);
      element.showModal();
    } else if (!props.source && element.open) element.close();
  }, [props.source]);

  const confirm = async () => {
    if (!props.source) return;
    setBusy(true);
    setMessage(null);
    try {
      await apiVoid(`/sources/${encodeURIComponent(props.source.id)}`, { method: 'DELETE' });
      await props.onDeleted();
    } catch (error) {
      setMessage(messageOf(error, 'Could not delete the source.'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={dialog}
      class="confirm-dialog"
      aria-labelledby="delete-title"
      aria-describedby="delete-text"
      onClose={props.onClose}
    >
      <h2 id="delete-title">Delete this source?</h2>
      <p id="delete-text">
        “{props.source?.name}” and its {plural(props.source?.document_count ?? 0, 'document')} will be removed
        from the agent’s knowledge. This cannot be undone.
      </p>
      {message ? <FormMessage kind="error">{message}</FormMessage> : null}
      <div class="actions">
        {/* Cancel comes first and has the focus: Enter on arrival does no harm. */}
        <button type="button" class="button ghost" onClick={props.onClose} autofocus>
          Cancel
        </button>
        <button type="button" class="button danger-solid" onClick={() => void confirm()} disabled={isBusy}>
          <TrashIcon size={18} />
          <span>{isBusy ? 'Deleting…' : 'Delete source'}</span>
        </button>
      </div>
    </dialog>
  );
}

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

type Draft = {
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
function bodyOf(kind: Kind, draft: Draft) {
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

function AddSource(props: { base: string; onAdded: () => Promise<void> }) {
  const [kind, setKind] = useState<Kind>('crawl');
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState<{ kind: 'error' | 'info'; text: string } | null>(null);
  const [isBusy, setBusy] = useState(false);
  const set = (key: keyof Draft) => (value: string) => setDraft({ ...draft, [key]: value });
  const [preview, setPreview] = useState<TSqlTestResult | null>(null);
  const [isTesting, setTesting] = useState(false);

  const testConnection = async () => {
    setMessage(null);
    setPreview(null);
    const parsed = bodyOf('sql', draft);
    if (!parsed.success) {
      setErrors(fieldErrorsOf(parsed.error));
      return;
    }
    setErrors({});
    setTesting(true);
    try {
      setPreview(
        await api(`${props.base}/sources/test-sql`, ZSqlTestResult, { method: 'POST', body: parsed.data }),
      );
    } catch (error) {
      if (error instanceof ApiError) setErrors(error.errors);
      if (error instanceof ApiError && error.status === 401) return;
      setMessage({ kind: 'error', text: messageOf(error, 'Could not test the connection.') });
    } finally {
      setTesting(false);
    }
  };

  const onSubmit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setMessage(null);
    const parsed = bodyOf(kind, draft);
    if (!parsed.success) {
      setErrors(fieldErrorsOf(parsed.error));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const source = await api(`${props.base}/sources`, ZSource, { method: 'POST', body: parsed.data });
      setDraft(EMPTY);
      setMessage({ kind: 'info', text: `Added “${source.name}”. Its progress shows in the list above.` });
      await props.onAdded();
    } catch (error) {
      if (error instanceof ApiError) {
        setErrors(error.errors);
        if (error.status === 401) return;
      }
      setMessage({ kind: 'error', text: messageOf(error, 'Could not add the source.') });
    } finally {
      setBusy(false);
    }
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
                setErrors({});
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
      {message ? <FormMessage kind={message.kind}>{message.text}</FormMessage> : null}
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

/** A labelled text area with its errors beside it (as {@link Field} does for inputs). */
function TextArea(props: {
  name: string;
  label: string;
  rows: number;
  value: string;
  onInput: (value: string) => void;
  errors: Record<string, string[]>;
  hint?: string;
}) {
  const id = `field-${props.name}`;
  const messages = props.errors[props.name] ?? [];
  const described = [props.hint ? `${id}-hint` : null, messages.length > 0 ? `${id}-error` : null]
    .filter(Boolean)
    .join(' ');
  return (
    <div class={`field${messages.length > 0 ? ' has-error' : ''}`}>
      <label for={id}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <textarea
        id={id}
        name={props.name}
        rows={props.rows}
        value={props.value}
        onInput={(event: TargetedEvent<HTMLTextAreaElement>) => props.onInput(event.currentTarget.value)}
        aria-invalid={messages.length > 0 ? 'true' : undefined}
        aria-describedby={described || undefined}
      />
      {messages.length > 0 ? (
        <p class="field-error" id={`${id}-error`}>
          <AlertIcon size={16} />
          <span>{messages.join(' ')}</span>
        </p>
      ) : null}
    </div>
  );
}

function SqlFields(props: {
  draft: Draft;
  set: (key: keyof Draft) => (value: string) => void;
  setSsl: (ssl: boolean) => void;
  errors: Record<string, string[]>;
}) {
  const { draft, set, errors } = props;
  return (
    <>
      <div class="field">
        <label for="field-engine">Database engine</label>
        <select
          id="field-engine"
          name="engine"
          value={draft.engine}
          onChange={(event: TargetedEvent<HTMLSelectElement>) => set('engine')(event.currentTarget.value)}
        >
          <option value="postgres">PostgreSQL</option>
          <option value="mysql">MySQL or MariaDB</option>
        </select>
      </div>
      <div class="field-row">
        <Field
          name="host"
          label="Host"
          value={draft.host}
          onInput={set('host')}
          errors={errors}
          hint="A name or IP address"
        />
        <Field
          name="port"
          label="Port"
          inputMode="numeric"
          value={draft.port}
          onInput={set('port')}
          errors={errors}
          hint={`${DEFAULT_SQL_PORTS[draft.engine]} if empty`}
        />
      </div>
      <div class="field-row">
        <Field
          name="database"
          label="Database"
          value={draft.database}
          onInput={set('database')}
          errors={errors}
        />
        <Field
          name="user"
          label="User"
          value={draft.user}
          onInput={set('user')}
          errors={errors}
          autocomplete="off"
        />
        <Field
          name="password"
          type="password"
          label="Password"
          value={draft.password}
          onInput={set('password')}
          errors={errors}
          autocomplete="new-password"
          hint="Stored encrypted, never shown again"
        />
      </div>
      <TextArea
        name="query"
        label="Query"
        rows={4}
        value={draft.query}
        onInput={set('query')}
        errors={errors}
        hint="One SELECT; it runs read-only"
      />
      <div class="field-row">
        <Field
          name="title_column"
          label="Title column (optional)"
          value={draft.titleColumn}
          onInput={set('titleColumn')}
          errors={errors}
        />
        <Field
          name="url_column"
          label="Link column (optional)"
          value={draft.urlColumn}
          onInput={set('urlColumn')}
          errors={errors}
        />
      </div>
      <label class="check">
        <input
          type="checkbox"
          checked={draft.ssl}
          onChange={(event: TargetedEvent<HTMLInputElement>) => props.setSsl(event.currentTarget.checked)}
        />
        <span>Connect with TLS (certificate checked)</span>
      </label>
    </>
  );
}

/** What the connection test found: the first rows, or why it could not run. */
function SqlPreview(props: { result: TSqlTestResult }) {
  const { result } = props;
  if (!result.ok)
    return <FormMessage kind="error">{result.reason ?? 'The query could not run.'}</FormMessage>;
  return (
    <div class="sql-preview" role="status">
      <p>
        Connected.{' '}
        {result.rows.length === 0
          ? 'The query returned no rows.'
          : `The first ${plural(result.rows.length, 'row')}:`}
      </p>
      {result.rows.length > 0 ? (
        <div class="preview-scroll">
          <table aria-label="Query preview">
            <thead>
              <tr>
                {result.columns.map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {result.rows.map((row, index) => (
                <tr key={index}>
                  {result.columns.map((column) => (
                    <td key={column}>{row[column] ?? ''}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}

type UploadItem = {
  id: number;
  file: File;
  share: number;
  state: 'sending' | 'done' | 'refused';
  result: string;
  /** The source the file became, once accepted. */
  sourceId?: string;
};

const ACCEPT = UPLOAD_ACCEPTED_EXTENSIONS.map((extension) => `.${extension}`).join(',');
const TYPE_NAME: Record<string, string> = {
  pdf: 'PDF',
  docx: 'Word (.docx)',
  doc: 'Word (.doc)',
  xlsx: 'Excel (.xlsx)',
  xls: 'Excel (.xls)',
  csv: 'CSV',
  md: 'Markdown',
  txt: 'Plain text',
  odt: 'OpenDocument text',
  ods: 'OpenDocument spreadsheet',
};

const sizeOf = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1048576).toFixed(1)} MB`;

let nextUpload = 0;

/**
 * Files dropped or picked: each goes in its own request, so each has its own progress bar and
 * its own answer (the service takes a request's files all or nothing).
 */
function Uploads(props: { base: string; sources: TSource[] | null; onUploaded: () => Promise<void> }) {
  const statusOf = (sourceId: string | undefined) => {
    const source = props.sources?.find((candidate) => candidate.id === sourceId);
    if (!source) return 'added';
    if (source.status === 'failed') return `not indexed: ${source.error ?? 'failed'}`;
    return source.status === 'indexed' ? 'indexed' : 'added, indexing…';
  };
  const [items, setItems] = useState<UploadItem[]>([]);
  const [isOver, setOver] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const update = (id: number, change: Partial<UploadItem>) =>
    setItems((current) => current.map((item) => (item.id === id ? { ...item, ...change } : item)));

  const send = async (item: UploadItem) => {
    const form = new FormData();
    form.append(UPLOAD_FIELD, item.file, item.file.name);
    try {
      const [source] = await apiUpload(`${props.base}/uploads`, form, z.array(ZSource), (share) =>
        update(item.id, { share }),
      );
      const meta = ZUploadMetadata.safeParse(source?.config);
      const type = meta.success ? (TYPE_NAME[meta.data.file_type] ?? meta.data.file_type) : 'file';
      update(item.id, {
        share: 1,
        state: 'done',
        result: `Read as ${type}, ${sizeOf(meta.success ? meta.data.size_bytes : item.file.size)}`,
        ...(source ? { sourceId: source.id } : {}),
      });
      await props.onUploaded();
    } catch (error) {
      const reasons = error instanceof ApiError ? (error.errors.file ?? []) : [];
      update(item.id, {
        state: 'refused',
        result: reasons.length > 0 ? reasons.join(' ') : messageOf(error, 'The upload failed.'),
      });
    }
  };

  const add = (files: FileList | null) => {
    if (!files || files.length === 0) return;
    const list = [...files];
    setNotice(
      list.length > UPLOAD_MAX_FILES
        ? `Only the first ${UPLOAD_MAX_FILES} files are sent; drop the others again afterwards.`
        : null,
    );
    const added = list.slice(0, UPLOAD_MAX_FILES).map<UploadItem>((file) => {
      nextUpload += 1;
      return { id: nextUpload, file, share: 0, state: 'sending', result: '' };
    });
    setItems((current) => [...added, ...current]);
    for (const item of added) void send(item);
  };

  return (
    <section class="card uploads" aria-labelledby="uploads-title">
      <h2 id="uploads-title">Upload files</h2>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target for the mouse; the Choose files button inside is the keyboard's way */}
      <div
        class={`dropzone${isOver ? ' over' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(event) => {
          event.preventDefault();
          setOver(false);
          add(event.dataTransfer?.files ?? null);
        }}
      >
        <UploadIcon size={28} />
        <p>Drop files here, up to {UPLOAD_MAX_FILES} at a time, or</p>
        <button type="button" class="button primary" onClick={() => input.current?.click()}>
          Choose files
        </button>
        <input
          ref={input}
          id="upload-input"
          class="sr-only"
          type="file"
          multiple
          accept={ACCEPT}
          tabIndex={-1}
          aria-label="Files to upload"
          onChange={(event: TargetedEvent<HTMLInputElement>) => {
            add(event.currentTarget.files);
            event.currentTarget.value = '';
          }}
        />
        <p class="muted small">PDF, Word, Excel, OpenDocument, CSV, Markdown or text; at most 50 MB each.</p>
      </div>
      {notice ? <FormMessage kind="info">{notice}</FormMessage> : null}
      {items.length > 0 ? (
        <ul class="upload-list" aria-label="Uploads">
          {items.map((item) => (
            <li key={item.id} class={`upload upload-${item.state}`}>
              <span class="upload-name">{item.file.name}</span>
              {item.state === 'sending' ? (
                <progress class="bar" max={1} value={item.share} aria-label={`Sending ${item.file.name}`}>
                  {Math.round(item.share * 100)}%
                </progress>
              ) : null}
              <span class="upload-result" role="status">
                {item.state === 'sending'
                  ? `Sending… ${Math.round(item.share * 100)}%`
                  : item.state === 'done'
                    ? `${item.result}: ${statusOf(item.sourceId)}.`
                    : item.result}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
