import { createRequire } from 'node:module';
import { fileTypeFromBuffer } from 'file-type';
import { sniffMarkup } from './sniff-markup.js';

/** Every upload type the service accepts, decided from the bytes. */
export type UploadType = 'pdf' | 'docx' | 'doc' | 'xlsx' | 'xls' | 'ods' | 'odt' | 'csv' | 'md' | 'txt';

/** The outcome of {@link detectUploadType}: the type, or a reason an admin can read. */
export type UploadTypeResult =
  | { ok: true; type: UploadType; extension: string }
  | { ok: false; reason: string };

/** Accepted file-name extensions (lower case, no dot) and the type each one names. */
export const UPLOAD_EXTENSIONS: Readonly<Record<string, UploadType>> = Object.freeze({
  pdf: 'pdf',
  docx: 'docx',
  doc: 'doc',
  xlsx: 'xlsx',
  xls: 'xls',
  ods: 'ods',
  odt: 'odt',
  csv: 'csv',
  md: 'md',
  markdown: 'md',
  txt: 'txt',
});

type BinaryUploadType = Exclude<UploadType, 'csv' | 'md' | 'txt'>;

/** file-type's `ext` for the binary types we take as they are detected. */
const DIRECT_BINARY_TYPES: Readonly<Record<string, BinaryUploadType>> = {
  pdf: 'pdf',
  docx: 'docx',
  xlsx: 'xlsx',
  odt: 'odt',
  ods: 'ods',
};

/** Friendlier names for detected types an admin is likely to try. */
const DETECTED_LABELS: Readonly<Record<string, string>> = {
  exe: 'a Windows executable (exe)',
  elf: 'a Linux executable (ELF)',
  macho: 'a macOS executable (Mach-O)',
  png: 'a PNG image',
  jpg: 'a JPEG image',
  gif: 'a GIF image',
  webp: 'a WebP image',
  pptx: 'a PowerPoint presentation (pptx)',
  odp: 'an OpenDocument presentation (odp)',
  rtf: 'RTF',
  epub: 'an EPUB book',
  gz: 'a gzip archive',
  '7z': 'a 7-Zip archive',
  rar: 'a RAR archive',
  tar: 'a tar archive',
};

const ACCEPTED_LIST = Object.keys(UPLOAD_EXTENSIONS)
  .map((extension) => `.${extension}`)
  .join(', ');

function refuse(reason: string): UploadTypeResult {
  return { ok: false, reason };
}

/** The lower-cased extension of the last path segment of `fileName`, or '' when it has none. */
export function fileNameExtension(fileName: string): string {
  const base = fileName.trim().split(/[/\\]/).at(-1) ?? '';
  const dot = base.lastIndexOf('.');
  return dot === -1 ? '' : base.slice(dot + 1).toLowerCase();
}

/**
 * Tells .doc from .xls by the root streams of a Compound File (MS-CFB): Word 97 keeps its
 * text in `WordDocument`, Excel 97 in `Workbook` (`Book` for Excel 5). Encrypted OOXML is
 * CFB with an `EncryptedPackage` stream.
 */
function classifyCompoundFile(bytes: Uint8Array): { type: 'doc' | 'xls' } | { reason: string } {
  let rootStreams: Set<string>;
  try {
    // Loaded on the first Office 97 file, not at start.
    const CFB: typeof import('cfb') = createRequire(import.meta.url)('cfb');
    const container = CFB.read(bytes, { type: 'buffer' });
    rootStreams = new Set(
      container.FullPaths.flatMap((path, index) => {
        const entry = container.FileIndex[index];
        const rest = path.slice(path.indexOf('/') + 1);
        return entry?.type === 2 && !rest.includes('/') ? [rest] : [];
      }),
    );
  } catch {
    return { reason: 'file content is a damaged Office 97 (compound) file' };
  }
  if (rootStreams.has('EncryptedPackage')) {
    return { reason: 'file is a password-protected Office document, which cannot be read' };
  }
  if (rootStreams.has('WordDocument')) return { type: 'doc' };
  if (rootStreams.has('Workbook') || rootStreams.has('Book')) return { type: 'xls' };
  if (rootStreams.has('PowerPoint Document')) {
    return { reason: 'file content is a PowerPoint presentation (ppt), which is not accepted' };
  }
  return { reason: 'file content is an Office compound file that is neither Word (.doc) nor Excel (.xls)' };
}

/** Decides a text upload: valid UTF-8 (BOM allowed), no NUL byte, not HTML/SVG/XML. */
function classifyText(bytes: Uint8Array): { ok: true } | { ok: false; reason: string } {
  if (bytes.includes(0)) {
    return { ok: false, reason: 'file content is binary (it contains NUL bytes) and of no accepted type' };
  }
  let text: string;
  try {
    // ignoreBOM keeps a leading U+FEFF in the string so the sniffer sees what the file holds.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { ok: false, reason: 'file content is neither an accepted document type nor valid UTF-8 text' };
  }
  const markup = sniffMarkup(text);
  if (markup !== undefined) return { ok: false, reason: `file content is ${markup}, which is not accepted` };
  return { ok: true };
}

/** The detected content family: a binary type, text, or a refusal. */
async function classifyContent(
  bytes: Uint8Array,
): Promise<{ type: BinaryUploadType } | { type: 'text' } | { reason: string }> {
  const detected = await fileTypeFromBuffer(bytes);
  if (detected === undefined) {
    const text = classifyText(bytes);
    return text.ok ? { type: 'text' } : { reason: text.reason };
  }
  const direct = DIRECT_BINARY_TYPES[detected.ext];
  if (direct !== undefined) return { type: direct };
  if (detected.ext === 'cfb') return classifyCompoundFile(bytes);
  if (detected.ext === 'zip')
    return { reason: 'file content is a zip archive; zip archives are not accepted' };
  if (detected.ext === 'xml') {
    // file-type calls anything opening with `<?xml` XML; say SVG when it is one.
    const markup = classifyText(bytes);
    return { reason: markup.ok ? 'file content is XML, which is not accepted' : markup.reason };
  }
  const label = DETECTED_LABELS[detected.ext] ?? `${detected.ext.toUpperCase()} (${detected.mime})`;
  return { reason: `file content is ${label}, which is not accepted` };
}

/** The text type a name picks once the bytes proved the upload is text. */
function textTypeFor(extension: string): UploadType | undefined {
  if (extension === '') return 'txt';
  const type = UPLOAD_EXTENSIONS[extension];
  return type === 'csv' || type === 'md' || type === 'txt' ? type : undefined;
}

/**
 * Decides an upload's type from its bytes; the name never widens what is accepted.
 *
 * 1. The content is classified first: a binary signature (file-type) must be pdf, docx,
 *    xlsx, odt or ods, or an Office 97 compound file holding a Word or Excel stream (doc,
 *    xls). With no signature the bytes must be UTF-8 text (BOM allowed) without NUL bytes
 *    that does not open like HTML, SVG or XML. Anything else is refused, naming what it is.
 * 2. The name's extension must then agree with the content: for a binary type it must be
 *    that type's own extension; for text it picks among csv, md/markdown and txt. A name
 *    without an extension takes the detected type (text → txt). A name with an extension
 *    outside the accepted list, or of the other family (text named .pdf, a PDF named .docx),
 *    is refused as renamed.
 *
 * `extension` in the result is the name's extension (e.g. `markdown`), or the type when the
 * name has none.
 */
export async function detectUploadType(bytes: Uint8Array, fileName: string): Promise<UploadTypeResult> {
  if (bytes.length === 0) return refuse('the file is empty');
  const content = await classifyContent(bytes);
  if ('reason' in content) return refuse(content.reason);
  const extension = fileNameExtension(fileName);
  if (extension !== '' && UPLOAD_EXTENSIONS[extension] === undefined) {
    return refuse(`files named .${extension} are not accepted (accepted: ${ACCEPTED_LIST})`);
  }
  if (content.type === 'text') {
    const type = textTypeFor(extension);
    if (type === undefined) return refuse(`the file is text but is named .${extension}`);
    return { ok: true, type, extension: extension === '' ? type : extension };
  }
  if (extension !== '' && UPLOAD_EXTENSIONS[extension] !== content.type) {
    return refuse(`the file content is ${content.type.toUpperCase()} but it is named .${extension}`);
  }
  return { ok: true, type: content.type, extension: extension === '' ? content.type : extension };
}
