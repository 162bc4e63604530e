import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback, gzip as gzipCallback } from 'node:zlib';
import { sql } from 'kysely';
import { decodeAppKey } from '../config/config.js';
import { lockDataDir } from '../db/data-dir-lock.js';
import { openEmbeddedDatabase } from '../db/database.js';
import { AppError, validationError } from '../errors/app-error.js';
import {
  BackupArchiveError,
  type BackupManifest,
  decodeBackup,
  encodeBackup,
  KEY_ENTRIES,
  PGDATA_ENTRY,
} from './backup-archive.js';
import type { CommandContext } from './commands.js';

// Off the main thread (zlib's thread pool); level 1: the store's empty pages shrink just as well.
const gzip = promisify(gzipCallback);
const gunzip = promisify(gunzipCallback);

/** What `cli backup` reports. */
export type BackupResult = {
  file: string;
  bytes: number;
  key: BackupManifest['key'];
  migration: number | null;
};

/** Writes `chunks` to `file` atomically: a 0600 temp file beside it, flushed, renamed over it. */
async function writeAtomically(file: string, chunks: readonly Buffer[]): Promise<number> {
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  let bytes = 0;
  const handle = await open(temp, 'wx', 0o600);
  try {
    for (const chunk of chunks) {
      await handle.write(chunk);
      bytes += chunk.byteLength;
    }
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  // The rename itself is durable once the directory is flushed.
  const directory = await open(dirname(file), 'r');
  await directory.sync().finally(() => directory.close());
  return bytes;
}

async function readOptional(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * `cli backup <file>` (a data command: inside the running service through its control socket, or
 * on the store the CLI opened): a consistent snapshot of the embedded store, taken between two
 * groups of statements (a transaction in flight is left out, as a crash would leave it), with the
 * key files of DATA_DIR, written atomically with mode 0600.
 */
export async function backupEmbeddedStore(ctx: CommandContext, args: Record<string, unknown>) {
  const file = args.file;
  if (typeof file !== 'string' || !file.startsWith('/')) {
    throw validationError({ file: ['The backup file must be an absolute path.'] });
  }
  const dump = ctx.database.dumpDataDir;
  if (ctx.database.mode !== 'embedded' || !dump) {
    throw new AppError('validation_failed', {
      message:
        'cli backup is for the embedded store; on PostgreSQL use pg_dump -Fc (see docs/operations.md, "Backups").',
    });
  }
  const target = await stat(dirname(file)).catch(() => null);
  if (!target?.isDirectory()) {
    throw validationError({ file: [`The directory ${dirname(file)} does not exist.`] });
  }
  const migrated = await sql<{ name: string | null }>`
    select to_regclass('schema_migrations')::text as name`.execute(ctx.database.db);
  if (!migrated.rows[0]?.name) {
    throw new AppError('validation_failed', {
      message: `${ctx.config.dataDir} holds no store yet (the service never started on it): nothing to back up.`,
    });
  }
  const migration = await sql<{ current: number | null }>`
    select max(version)::int as current from schema_migrations`.execute(ctx.database.db);
  // Flush the buffers first, so the restored copy has little WAL to replay.
  await sql`checkpoint`.execute(ctx.database.db);
  const pgdata = await gzip(await dump.call(ctx.database), { level: 1 });
  const entries: Array<{ name: string; data: Uint8Array }> = [{ name: PGDATA_ENTRY, data: pgdata }];
  let key: BackupManifest['key'] = 'environment';
  for (const name of KEY_ENTRIES) {
    const data = await readOptional(join(ctx.config.dataDir, name));
    if (!data) continue;
    entries.push({ name, data });
    if (name === 'app.key' && decodeAppKey(data.toString('utf8'))?.equals(ctx.config.appKey)) key = 'archive';
  }
  const chunks = encodeBackup(
    { created_at: ctx.clock.now().toISOString(), key, migration: migration.rows[0]?.current ?? null },
    entries,
  );
  const bytes = await writeAtomically(file, chunks);
  ctx.log.info({ file, bytes }, 'backup written');
  return { file, bytes, key, migration: migration.rows[0]?.current ?? null } satisfies BackupResult;
}

/** What `cli restore` reports. */
export type RestoreResult = { data_dir: string; key: BackupManifest['key']; migration: number | null };

/** Raised when a restore is refused; nothing was changed. */
export class RestoreRefusedError extends Error {
  override readonly name = 'RestoreRefusedError';
}

const isEmpty = async (dir: string) => {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return names.length === 0;
};

/**
 * `cli restore <file> [--data-dir D] [--force]`: checks the whole archive (sizes, checksums), then
 * loads its store into a staging directory and opens it, and only then moves it into DATA_DIR,
 * with its key files (0600). A non-empty DATA_DIR is refused unless `force`; a DATA_DIR a running
 * service holds is always refused.
 */
export async function restoreEmbeddedStore(options: {
  file: string;
  dataDir: string;
  force: boolean;
  log: { info(msg: string): void; warn(msg: string): void };
}): Promise<RestoreResult> {
  let decoded: ReturnType<typeof decodeBackup>;
  try {
    decoded = decodeBackup(await readFile(options.file));
  } catch (error) {
    if (error instanceof BackupArchiveError || (error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new RestoreRefusedError(
        `${options.file} is not a usable backup: ${error instanceof BackupArchiveError ? error.message : 'no such file'}. Nothing was changed.`,
      );
    }
    throw error;
  }
  const { manifest, entries } = decoded;
  const dataDir = options.dataDir;
  if (!options.force && !(await isEmpty(dataDir))) {
    throw new RestoreRefusedError(
      `${dataDir} is not empty. Restore into a new or empty directory (--data-dir), or give --force to ` +
        'replace its store and key files (stop the service first). Nothing was changed.',
    );
  }
  // Holding the lock keeps a service from starting on the directory meanwhile; a running one refuses us.
  const release = await lockDataDir(dataDir, () => {});
  const staging = join(dataDir, `.restore-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(staging, { mode: 0o700 });
    const dump = join(staging, 'pgdata.tar');
    try {
      await writeAtomically(dump, [await gunzip(entries.get(PGDATA_ENTRY) ?? Buffer.alloc(0))]);
      // Loading the dump and opening it is the last check: a store PGlite cannot open is refused here.
      const database = await openEmbeddedDatabase({ dataDir: staging, loadDump: dump, log: options.log });
      try {
        await sql`select count(*) from schema_migrations`.execute(database.db);
      } finally {
        await database.close();
      }
    } catch (error) {
      throw new RestoreRefusedError(
        `${options.file} is not a usable backup: its store does not open (${error instanceof Error ? error.message : String(error)}). Nothing was changed.`,
      );
    }
    await rm(dump, { force: true });
    const current = join(dataDir, 'pgdata');
    const exists = await stat(current).then(
      () => true,
      () => false,
    );
    if (exists) await rename(current, join(staging, 'pgdata.replaced'));
    await rename(join(staging, 'pgdata'), current);
    for (const name of KEY_ENTRIES) {
      const data = entries.get(name);
      if (data) await writeAtomically(join(dataDir, name), [data]);
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
    await release();
  }
  return { data_dir: dataDir, key: manifest.key, migration: manifest.migration };
}
