import { createRequire } from 'node:module';
import type { FetchPage } from './fetch-page.js';

// robots-parser is CommonJS (`module.exports = function`) but its typings declare an ES default
// export, which NodeNext reads as `module.exports.default`: loaded with require and typed here.
type RobotsTxt = {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
  getCrawlDelay(userAgent?: string): number | undefined;
  getSitemaps(): string[];
};
type RobotsParser = (url: string, contents: string) => RobotsTxt;
const loadedParser: unknown = createRequire(import.meta.url)('robots-parser');
function isRobotsParser(value: unknown): value is RobotsParser {
  return typeof value === 'function' && value.length === 2;
}
if (!isRobotsParser(loadedParser)) throw new Error('robots-parser does not export its parser function');
const robotsParser: RobotsParser = loadedParser;

/** The crawler's product token, matched against `User-agent:` lines and `<meta name>` robots tags. */
export const CRAWLER_TOKEN = 'ChatAgentServiceBot';
/** The User-Agent header of every crawler request. */
export const CRAWLER_USER_AGENT = `${CRAWLER_TOKEN}/1.0 (+knowledge-source crawler of a self-hosted chat agent service)`;
/** How much of a robots.txt is parsed: RFC 9309 §2.5 asks for at least 500 KiB. */
export const ROBOTS_MAX_BYTES = 500 * 1024;
/** Cap on the fetched robots.txt; anything past `ROBOTS_MAX_BYTES` is ignored, not an error. */
const ROBOTS_FETCH_MAX_BYTES = 2 * 1024 * 1024;

/** The rules of one origin's robots.txt. */
export type RobotsRules = {
  /** Whether the crawler may fetch the URL (URLs of another origin: false). */
  isAllowed(url: string): boolean;
  /** `Crawl-delay` for the crawler's group (or `*`), in seconds; undefined when absent. */
  crawlDelaySeconds(): number | undefined;
  /** `Sitemap:` URLs, as listed. */
  sitemaps(): string[];
  /** Why everything is disallowed (robots.txt unreachable); undefined when rules were read. */
  unavailableReason: string | undefined;
};

/** Rules from a robots.txt body (its first `ROBOTS_MAX_BYTES`) served at `robotsUrl`. */
export function parseRobots(robotsUrl: string, body: string | Buffer): RobotsRules {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const text = bytes.subarray(0, ROBOTS_MAX_BYTES).toString('utf8');
  const robots = robotsParser(robotsUrl, text);
  return {
    // robots-parser answers undefined for another origin: that is not ours to fetch.
    isAllowed: (url) => robots.isAllowed(url, CRAWLER_TOKEN) === true,
    crawlDelaySeconds: () => {
      const delay = robots.getCrawlDelay(CRAWLER_TOKEN);
      return delay !== undefined && Number.isFinite(delay) && delay >= 0 ? delay : undefined;
    },
    sitemaps: () => robots.getSitemaps(),
    unavailableReason: undefined,
  };
}

/** Rules that allow every URL of `origin` (robots.txt absent: RFC 9309 §2.3.1.3). */
export function allowAllRobots(origin: string): RobotsRules {
  return parseRobots(new URL('/robots.txt', origin).href, '');
}

/** Rules that disallow everything, with the reason (robots.txt unreachable: RFC 9309 §2.3.1.4). */
export function disallowAllRobots(reason: string): RobotsRules {
  return {
    isAllowed: () => false,
    crawlDelaySeconds: () => undefined,
    sitemaps: () => [],
    unavailableReason: reason,
  };
}

/**
 * Fetches and parses `<origin>/robots.txt` (RFC 9309). Redirects are followed (up to five, by the
 * fetcher); 2xx → its rules; 4xx other than 429 → allow all ("unavailable", §2.3.1.3); 429, 5xx
 * and network or guard failures → disallow all ("unreachable", §2.3.1.4), with the reason.
 */
export async function fetchRobots(origin: string, fetchPage: FetchPage): Promise<RobotsRules> {
  const robotsUrl = new URL('/robots.txt', origin).href;
  const fetched = await fetchPage(robotsUrl, { maxBytes: ROBOTS_FETCH_MAX_BYTES });
  if (!fetched.ok) return disallowAllRobots(fetched.reason);
  const { status } = fetched;
  if (status >= 200 && status <= 299) return parseRobots(robotsUrl, fetched.body);
  // 429 is a "slow down", not an absence; like Google, treat it as a server error.
  if (status >= 400 && status <= 499 && status !== 429) return allowAllRobots(origin);
  return disallowAllRobots(
    `failed: ${robotsUrl} answered HTTP ${status}; robots.txt is unreachable, so nothing may be crawled`,
  );
}

/** The robots directives of an `X-Robots-Tag` header that apply to the crawler (lower-case). */
export function robotsHeaderDirectives(value: string): Set<string> {
  const result = new Set<string>();
  let applies = true;
  for (const part of value.toLowerCase().split(',')) {
    // "otherbot: noindex, nofollow" scopes what follows to that crawler (Google's syntax);
    // "max-snippet: 20" and the like are directives with a value, not scopes.
    const scoped = /^\s*([a-z0-9_-]+)\s*:\s*(.*)$/.exec(part);
    let directive = part.trim();
    if (scoped?.[1] !== undefined && scoped[2] !== undefined && !VALUED_DIRECTIVES.has(scoped[1])) {
      applies = scoped[1] === CRAWLER_TOKEN.toLowerCase();
      directive = scoped[2].trim();
    }
    if (applies && directive !== '') result.add(directive);
  }
  return result;
}

const VALUED_DIRECTIVES: ReadonlySet<string> = new Set([
  'unavailable_after',
  'max-snippet',
  'max-image-preview',
  'max-video-preview',
]);
