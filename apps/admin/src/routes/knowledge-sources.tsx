import { type TSource, ZSource, ZUploadMetadata } from '@service/contract';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiVoid } from '../api';
import { FormMessage } from '../components/field';
import { AlertIcon, RefreshIcon, TrashIcon } from '../components/icons';
import { can } from '../session';
import { BUSY, extentOf, messageOf, plural } from './knowledge-shared';

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

export function SourceTable(props: {
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
          {can('workspace.configure')
            ? 'Add your site below (crawl it, or give its sitemap), a single page or some text, or drop files such as a price list or your returns policy. The agent answers only from what is here.'
            : 'The agent answers only from what is here. An owner or admin of this workspace adds its sources.'}
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

/** Percent of the source's chunks with a vector (rounded down, so 100 means all); null without vectors or chunks. */
function embeddedShare(progress: TSource['progress']): number | null {
  if (progress.chunks_embedded === null || progress.chunks_total === 0) return null;
  return Math.floor((progress.chunks_embedded / progress.chunks_total) * 100);
}

function SourceRow(props: {
  source: TSource;
  isPending: boolean;
  onReindex: () => void;
  onDelete: () => void;
}) {
  const { source } = props;
  const { progress } = source;
  // Re-indexing and deleting a source change the agent's configuration (docs/roles.md).
  const canChange = can('workspace.configure');
  const canReindex = canChange && source.type !== 'site' && source.type !== 'products';
  const run = progress.last_run;
  const fetched = ['crawl', 'sitemap', 'url', 'sql'].includes(source.type);
  const uploadMeta = source.type === 'upload' ? ZUploadMetadata.partial().safeParse(source.config) : null;
  const uploadExtent = uploadMeta?.success ? extentOf(uploadMeta.data) : null;
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
        {progress.run ? (
          <span>
            fetched {progress.run.fetched} of ~{Math.max(progress.run.found, progress.run.fetched)}
            {progress.run.failed > 0 ? `, ${progress.run.failed} failed` : ''}
          </span>
        ) : fetched && run ? (
          <span>
            {run.fetched} read{run.skipped > 0 ? `, ${run.skipped} skipped` : ''}
            {run.removed > 0 ? `, ${run.removed} removed` : ''}
          </span>
        ) : uploadExtent ? (
          <span>{uploadExtent}</span>
        ) : (
          <span class="muted">{fetched ? 'Not yet' : '—'}</span>
        )}
      </td>
      <td data-label="Documents">
        {progress.documents_indexed} of {source.document_count} indexed
        {progress.documents_failed > 0 ? `, ${progress.documents_failed} failed` : ''}
        {embeddedShare(progress) !== null ? (
          <span class="muted"> · embedded {embeddedShare(progress)} %</span>
        ) : null}
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
        {canChange ? (
          <button type="button" class="button ghost small danger" onClick={props.onDelete}>
            <TrashIcon size={16} />
            <span>Delete</span>
            <span class="sr-only"> {source.name}</span>
          </button>
        ) : null}
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
