import {
  type TSource,
  type TUploadMetadata,
  UPLOAD_ACCEPTED_EXTENSIONS,
  UPLOAD_FIELD,
  UPLOAD_MAX_FILES,
  ZSource,
  ZUploadMetadata,
} from '@service/contract';
import type { TargetedEvent } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { z } from 'zod';
import { ApiError, apiUpload } from '../api';
import { FormMessage } from '../components/field';
import { UploadIcon } from '../components/icons';
import { extentOf, messageOf } from './knowledge-shared';

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

/** What the answer says of an accepted file: `PDF detected, 2 pages read, 11.9 KB`. */
function resultOf(meta: TUploadMetadata | null, file: File): string {
  if (!meta) return `Added, ${sizeOf(file.size)}`;
  const type = TYPE_NAME[meta.file_type] ?? meta.file_type;
  const extent = extentOf(meta);
  return [`${type} detected`, ...(extent ? [extent] : []), sizeOf(meta.size_bytes)].join(', ');
}

let nextUpload = 0;

/**
 * Files dropped or picked: each goes in its own request, so each has its own progress bar and
 * its own answer (the service takes a request's files all or nothing).
 */
export function Uploads(props: { base: string; sources: TSource[] | null; onUploaded: () => Promise<void> }) {
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
      update(item.id, {
        share: 1,
        state: 'done',
        result: resultOf(meta.success ? meta.data : null, item.file),
        ...(source ? { sourceId: source.id } : {}),
      });
      await props.onUploaded();
    } catch (error) {
      // The service names the file in each reason (`invoice.pdf: …`); the row already shows it.
      const reasons = (error instanceof ApiError ? (error.errors.file ?? []) : []).map((reason) =>
        reason.startsWith(`${item.file.name}: `) ? reason.slice(item.file.name.length + 2) : reason,
      );
      update(item.id, {
        state: 'refused',
        result: reasons.length > 0 ? `Refused: ${reasons.join(' ')}` : messageOf(error, 'The upload failed.'),
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
