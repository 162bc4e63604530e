import { type Unzipped, unzipSync, zipSync } from 'fflate';
import { UploadLimitError } from './upload-limit-error.js';

/** Most bytes an uploaded archive (docx, xlsx, odt, ods) may expand to, all entries together. */
export const MAX_UNZIPPED_BYTES = 200 * 1024 * 1024;

/** Most entries an uploaded archive may hold. */
export const MAX_ZIP_ENTRIES = 10_000;

/** Limits for {@link unzipWithinLimits}; both default to the exported caps. */
export type UnzipLimits = { maxBytes?: number; maxEntries?: number };

/**
 * Unzips `bytes` in memory, refusing archives that declare more than `maxBytes` in total or
 * more than `maxEntries` entries. The declared sizes are a real bound, not a hint: fflate
 * inflates each entry into a buffer of exactly its declared size, so an entry that lies
 * about its size comes out truncated instead of growing (a zip bomb then reads as corrupt).
 */
export function unzipWithinLimits(bytes: Uint8Array, limits: UnzipLimits = {}): Unzipped {
  const maxBytes = limits.maxBytes ?? MAX_UNZIPPED_BYTES;
  const maxEntries = limits.maxEntries ?? MAX_ZIP_ENTRIES;
  let total = 0;
  let entries = 0;
  let unzipped: Unzipped;
  try {
    unzipped = unzipSync(bytes, {
      filter: (file) => {
        entries += 1;
        total += file.originalSize;
        if (entries > maxEntries)
          throw new UploadLimitError(`the archive has more than ${maxEntries} entries`);
        if (total > maxBytes) {
          throw new UploadLimitError(
            `the archive expands to more than ${Math.floor(maxBytes / 1024 / 1024)} MB`,
          );
        }
        return true;
      },
    });
  } catch (error) {
    if (error instanceof UploadLimitError) throw error;
    throw new Error(`the file is not a readable zip archive (${errorMessage(error)})`);
  }
  return unzipped;
}

/**
 * Unzips within the limits and zips the entries again, stored (no compression), so a
 * library with its own zip reader (mammoth, SheetJS) sees only sizes that were checked.
 */
export function repackWithinLimits(bytes: Uint8Array, limits: UnzipLimits = {}): Uint8Array {
  const entries = unzipWithinLimits(bytes, limits);
  return zipSync(entries, { level: 0 });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
