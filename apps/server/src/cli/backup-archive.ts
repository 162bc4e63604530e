import { createHash } from 'node:crypto';

/**
 * The embedded store's backup file (`cli backup`): one line naming the format, one line of JSON
 * (the manifest: each entry's name, size and SHA-256), then the entries' bytes one after the
 * other and nothing else. Reading checks all of it before anything is restored, so a truncated
 * or altered file is refused whole.
 */
export const BACKUP_MAGIC = 'chat-agent-service embedded backup v1\n';

/** The entry holding PGlite's dump of `DATA_DIR/pgdata` (a tar file, gzipped). */
export const PGDATA_ENTRY = 'pgdata.tar.gz';

/** Files of DATA_DIR copied beside the store when present: the master key the secrets are sealed with. */
export const KEY_ENTRIES = ['app.key', 'app.key.previous'] as const;

/** The largest manifest line accepted (it lists a handful of entries). */
const MAX_MANIFEST_BYTES = 64 * 1024;

export type BackupEntry = { name: string; bytes: number; sha256: string };

export type BackupManifest = {
  format: 1;
  created_at: string;
  /** Where the data's APP_KEY lives: in the archive (`app.key`) or only in the environment. */
  key: 'archive' | 'environment';
  /** Highest migration applied in the store when it was dumped. */
  migration: number | null;
  entries: BackupEntry[];
};

/** Raised for a file that is not a whole, unaltered backup. */
export class BackupArchiveError extends Error {
  override readonly name = 'BackupArchiveError';
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Lays out a backup file from its entries (name → bytes). */
export function encodeBackup(
  meta: Omit<BackupManifest, 'format' | 'entries'>,
  entries: ReadonlyArray<{ name: string; data: Uint8Array }>,
): Buffer[] {
  const manifest: BackupManifest = {
    format: 1,
    ...meta,
    entries: entries.map(({ name, data }) => ({ name, bytes: data.byteLength, sha256: sha256(data) })),
  };
  return [
    Buffer.from(BACKUP_MAGIC),
    Buffer.from(`${JSON.stringify(manifest)}\n`),
    ...entries.map(({ data }) => Buffer.from(data.buffer, data.byteOffset, data.byteLength)),
  ];
}

/** Reads a backup file's bytes: its manifest and entries, after checking sizes and checksums. */
export function decodeBackup(file: Buffer): { manifest: BackupManifest; entries: Map<string, Buffer> } {
  const magic = Buffer.from(BACKUP_MAGIC);
  if (file.byteLength < magic.byteLength || !file.subarray(0, magic.byteLength).equals(magic)) {
    throw new BackupArchiveError('it is not a backup made by `cli backup` (its first line is wrong)');
  }
  const end = file.indexOf(0x0a, magic.byteLength);
  if (end < 0 || end - magic.byteLength > MAX_MANIFEST_BYTES) {
    throw new BackupArchiveError('its manifest line is missing or cut short');
  }
  const manifest = parseManifest(file.subarray(magic.byteLength, end).toString('utf8'));
  let offset = end + 1;
  const total = manifest.entries.reduce((sum, entry) => sum + entry.bytes, 0);
  if (file.byteLength - offset !== total) {
    throw new BackupArchiveError(
      `it is ${file.byteLength - offset < total ? 'truncated' : 'longer than its manifest says'}: ` +
        `${file.byteLength - offset} bytes of data where the manifest lists ${total}`,
    );
  }
  const entries = new Map<string, Buffer>();
  for (const entry of manifest.entries) {
    const data = file.subarray(offset, offset + entry.bytes);
    offset += entry.bytes;
    if (sha256(data) !== entry.sha256) {
      throw new BackupArchiveError(`its entry ${entry.name} is damaged (its SHA-256 does not match)`);
    }
    entries.set(entry.name, data);
  }
  if (!entries.has(PGDATA_ENTRY)) throw new BackupArchiveError(`it holds no ${PGDATA_ENTRY}`);
  return { manifest, entries };
}

function parseManifest(line: string): BackupManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new BackupArchiveError('its manifest is not valid JSON');
  }
  const value = parsed as Partial<BackupManifest> | null;
  const entries = value?.entries;
  const known = new Set<string>([PGDATA_ENTRY, ...KEY_ENTRIES]);
  const valid =
    value !== null &&
    typeof value === 'object' &&
    value.format === 1 &&
    typeof value.created_at === 'string' &&
    (value.key === 'archive' || value.key === 'environment') &&
    (value.migration === null || Number.isSafeInteger(value.migration)) &&
    Array.isArray(entries) &&
    entries.every(
      (entry) =>
        typeof entry === 'object' &&
        entry !== null &&
        known.has(entry.name) &&
        Number.isSafeInteger(entry.bytes) &&
        entry.bytes >= 0 &&
        typeof entry.sha256 === 'string' &&
        /^[0-9a-f]{64}$/.test(entry.sha256),
    ) &&
    new Set(entries.map((entry) => entry.name)).size === entries.length;
  if (!valid) throw new BackupArchiveError('its manifest is not one this version understands');
  return value as BackupManifest;
}
