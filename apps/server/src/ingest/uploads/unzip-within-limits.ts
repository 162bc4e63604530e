import { inflateRawSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { UploadLimitError } from './upload-limit-error.js';

/** Most bytes an uploaded archive (docx, xlsx, odt, ods) may expand to, all entries together. */
export const MAX_UNZIPPED_BYTES = 200 * 1024 * 1024;

/** Most entries an uploaded archive may hold. */
export const MAX_ZIP_ENTRIES = 10_000;

/** Limits for {@link unzipWithinLimits}; both default to the exported caps. */
export type UnzipLimits = { maxBytes?: number; maxEntries?: number };

/** An archive's entries by name. */
export type UnzippedEntries = Record<string, Uint8Array>;

/** One entry as the central directory describes it (APPNOTE.TXT 4.3.12). */
type CentralEntry = {
  name: string;
  flags: number;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
};

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const ZIP64_EXTRA = 0x0001;
const MAX_U32 = 0xffffffff;

/** A structural problem of the archive; the caller words it as a damaged file. */
class DamagedZipError extends Error {}

/**
 * Unzips `bytes` in memory, refusing archives that declare more than `maxBytes` in total or
 * more than `maxEntries` entries. The declared sizes are a real bound, not a hint: each entry
 * is inflated with its declared size as the output limit, and zlib stops as soon as the output
 * passes it, so a deflate stream that lies about its size (1,000 bytes declared, 10 GiB inside)
 * is refused after about a zlib chunk of work instead of being inflated to its end. An entry
 * that holds less than it declares is refused too.
 */
export function unzipWithinLimits(bytes: Uint8Array, limits: UnzipLimits = {}): UnzippedEntries {
  const maxBytes = limits.maxBytes ?? MAX_UNZIPPED_BYTES;
  const maxEntries = limits.maxEntries ?? MAX_ZIP_ENTRIES;
  try {
    const entries = readCentralDirectory(bytes, maxEntries);
    let total = 0;
    for (const entry of entries) {
      total += entry.size;
      if (total > maxBytes) {
        throw new UploadLimitError(
          `the archive expands to more than ${Math.floor(maxBytes / 1024 / 1024)} MB`,
        );
      }
    }
    const files: UnzippedEntries = {};
    for (const entry of entries) files[entry.name] = readEntry(bytes, entry);
    return files;
  } catch (error) {
    if (error instanceof UploadLimitError) throw error;
    throw new Error(`the file is not a readable zip archive (${errorMessage(error)})`);
  }
}

/**
 * Unzips within the limits and zips the entries again, stored (no compression), so a
 * library with its own zip reader (mammoth, SheetJS) sees only sizes that were checked.
 */
export function repackWithinLimits(bytes: Uint8Array, limits: UnzipLimits = {}): Uint8Array {
  const entries = unzipWithinLimits(bytes, limits);
  return zipSync(entries, { level: 0 });
}

/** The central directory's entries, in order; throws past `maxEntries` before reading any. */
function readCentralDirectory(bytes: Uint8Array, maxEntries: number): CentralEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfCentralDirectory(view);
  let count = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  let isZip64 = false;
  if (end >= 20 && view.getUint32(end - 20, true) === ZIP64_LOCATOR) {
    const record = safeNumber(view.getBigUint64(end - 12, true));
    if (record + 56 <= view.byteLength && view.getUint32(record, true) === ZIP64_END) {
      isZip64 = true;
      count = safeNumber(view.getBigUint64(record + 32, true));
      offset = safeNumber(view.getBigUint64(record + 48, true));
    }
  }
  if (count > maxEntries) throw new UploadLimitError(`the archive has more than ${maxEntries} entries`);
  const entries: CentralEntry[] = [];
  for (let index = 0; index < count; index += 1) {
    need(view, offset, 46, 'central directory');
    if (view.getUint32(offset, true) !== CENTRAL_HEADER) throw new DamagedZipError('bad central directory');
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    need(view, offset + 46, nameLength + extraLength, 'central directory');
    const flags = view.getUint16(offset + 8, true);
    const nameBytes = bytes.subarray(offset + 46, offset + 46 + nameLength);
    // Bit 11: the name is UTF-8; otherwise it is CP437, read here (as fflate does) as Latin-1.
    const name = Buffer.from(nameBytes).toString(flags & 0x800 ? 'utf8' : 'latin1');
    const sizes = zip64Sizes(view, offset + 46 + nameLength, extraLength, isZip64, {
      size: view.getUint32(offset + 24, true),
      compressedSize: view.getUint32(offset + 20, true),
      localOffset: view.getUint32(offset + 42, true),
    });
    entries.push({ name, flags, method: view.getUint16(offset + 10, true), ...sizes });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The end-of-central-directory record: within the last 22 bytes plus the longest comment. */
function findEndOfCentralDirectory(view: DataView): number {
  const lowest = Math.max(0, view.byteLength - 22 - 0xffff);
  for (let at = view.byteLength - 22; at >= lowest; at -= 1) {
    if (view.getUint32(at, true) === END_OF_CENTRAL_DIRECTORY) return at;
  }
  throw new DamagedZipError('no end of central directory');
}

/** The sizes and offset, taking each field that reads 0xFFFFFFFF from the zip64 extra field. */
function zip64Sizes(
  view: DataView,
  extraStart: number,
  extraLength: number,
  isZip64: boolean,
  fields: { size: number; compressedSize: number; localOffset: number },
): { size: number; compressedSize: number; localOffset: number } {
  const wide = [fields.size, fields.compressedSize, fields.localOffset].some((value) => value === MAX_U32);
  if (!isZip64 || !wide) return fields;
  for (let at = extraStart; at + 4 <= extraStart + extraLength; at += 4 + view.getUint16(at + 2, true)) {
    if (view.getUint16(at, true) !== ZIP64_EXTRA) continue;
    // The 64-bit values appear in this order, each only when its 32-bit field is 0xFFFFFFFF.
    let next = at + 4;
    const take = (value: number): number => {
      if (value !== MAX_U32) return value;
      need(view, next, 8, 'zip64 field');
      const wideValue = safeNumber(view.getBigUint64(next, true));
      next += 8;
      return wideValue;
    };
    const size = take(fields.size);
    const compressedSize = take(fields.compressedSize);
    return { size, compressedSize, localOffset: take(fields.localOffset) };
  }
  throw new DamagedZipError('missing zip64 sizes');
}

/** One entry's bytes: stored ones copied, deflated ones inflated with their declared size as the cap. */
function readEntry(bytes: Uint8Array, entry: CentralEntry): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  need(view, entry.localOffset, 30, entry.name);
  if (view.getUint32(entry.localOffset, true) !== LOCAL_HEADER)
    throw new DamagedZipError(`bad header of ${entry.name}`);
  if (entry.flags & 0x1) throw new DamagedZipError(`${entry.name} is encrypted`);
  const start =
    entry.localOffset +
    30 +
    view.getUint16(entry.localOffset + 26, true) +
    view.getUint16(entry.localOffset + 28, true);
  need(view, start, entry.compressedSize, entry.name);
  const data = bytes.subarray(start, start + entry.compressedSize);
  let output: Uint8Array;
  if (entry.method === 0) {
    output = data.slice();
  } else if (entry.method === 8) {
    try {
      // zlib checks the output after every chunk it writes and throws once it passes the cap.
      const inflated = inflateRawSync(data, { maxOutputLength: Math.max(1, entry.size) });
      output = new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.byteLength);
    } catch (error) {
      if (isTooLarge(error)) {
        throw new DamagedZipError(`${entry.name} expands past the ${entry.size} bytes it declares`);
      }
      throw new DamagedZipError(`${entry.name}: ${errorMessage(error)}`);
    }
  } else {
    throw new DamagedZipError(`${entry.name} uses compression method ${entry.method}`);
  }
  if (output.byteLength !== entry.size) {
    throw new DamagedZipError(`${entry.name} holds ${output.byteLength} bytes but declares ${entry.size}`);
  }
  return output;
}

function need(view: DataView, offset: number, length: number, what: string): void {
  if (offset < 0 || length < 0 || offset + length > view.byteLength) {
    throw new DamagedZipError(`${what} runs past the end of the file`);
  }
}

function safeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new DamagedZipError('a zip64 field is out of range');
  return Number(value);
}

function isTooLarge(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && 'code' in error && error.code === 'ERR_BUFFER_TOO_LARGE'
  );
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
