// URL rules shared by the crawler and the sitemap reader: one normal form per page, so the
// de-duplication sets compare like with like.

// Click identifiers and campaign tags change nothing on the page (utm_* is matched by prefix).
const TRACKING_PARAMS: ReadonlySet<string> = new Set([
  'fbclid',
  'gclid',
  'dclid',
  'gbraid',
  'wbraid',
  'msclkid',
  'mc_cid',
  'mc_eid',
  'yclid',
  '_hsenc',
  '_hsmi',
]);

// Extensions that are never an HTML page: skipped before any request is made.
const BINARY_EXTENSIONS: ReadonlySet<string> = new Set(
  (
    'pdf jpg jpeg png gif webp svg ico bmp tif tiff avif heic zip gz tgz bz2 xz 7z rar tar exe dmg msi ' +
    'pkg deb rpm apk iso bin img mp3 mp4 m4a m4v mov avi wmv webm ogg oga ogv wav flac mkv doc docx xls ' +
    'xlsx ppt pptx odt ods odp rtf epub css js mjs map json xml rss atom woff woff2 ttf otf eot txt csv'
  ).split(' '),
);

/**
 * The normal form of a page URL, resolved against `base`: http(s) only, no credentials, fragment
 * dropped, default port dropped (WHATWG parsing), tracking parameters (utm_*, fbclid, gclid...)
 * removed, the remaining query kept in its order. Null when the URL is unusable.
 */
export function normalizeUrl(raw: string, base?: string): string | null {
  let url: URL;
  try {
    url = base === undefined ? new URL(raw.trim()) : new URL(raw.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '') return null;
  url.hash = '';
  if (url.search !== '') {
    const kept = new URLSearchParams();
    for (const [name, value] of url.searchParams) {
      const lower = name.toLowerCase();
      if (!lower.startsWith('utm_') && !TRACKING_PARAMS.has(lower)) kept.append(name, value);
    }
    // Rebuilt only when something was dropped: URLSearchParams re-encodes what it keeps.
    if ([...kept].length !== [...url.searchParams].length) url.search = kept.toString();
  }
  return url.href;
}

/** The origin (scheme, host and port) of a URL; '' when it does not parse. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/** True when the URL's path ends in an extension that is never an HTML page (.pdf, .jpg, .zip...). */
export function hasBinaryExtension(url: string): boolean {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return false;
  }
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return false;
  return BINARY_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}
