// The crawl-safety guard: every outbound fetch of content goes through `safeFetch` (or `checkUrl`
// for connections that are not HTTP, such as SQL-source hosts).
export { describeUnsafeAddress, formatAddress } from './ip-policy.js';
export { type ConnectHook, type ConnectTarget, pinnedConnector, pinnedLookup } from './pinned-connector.js';
export { DEFAULT_MAX_BYTES, type SafeFetchOptions, type SafeFetchResult, safeFetch } from './safe-fetch.js';
export {
  checkUrl,
  isAllowListed,
  isBlockedName,
  type Resolve,
  systemResolve,
  type UrlCheck,
  type UrlGuardOptions,
} from './url-guard.js';
