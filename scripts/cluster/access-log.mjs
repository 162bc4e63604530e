// Reads the access log the nginx template writes (log_format chat_service).
import { existsSync, readFileSync } from 'node:fs';

/**
 * Reads nginx's access log: one entry a request, with the instance (`upstream`, the last one
 * tried when nginx moved on), the service's request id and nginx's time for it in ms (NaN when
 * the line has none).
 */
export function readAccessLog(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const request = /"([A-Z]+) (\S+) [^"]*"/.exec(line);
      const status = /" (\d{3}) /.exec(line);
      // A value runs to the next ` name=`: several upstreams are written "a, b".
      const field = (name) => new RegExp(`${name}=(.*?)(?= \\w+=|$)`).exec(line)?.[1] ?? '';
      const tried = field('upstream')
        .split(/,\s*/)
        .filter((entry) => entry && entry !== '-');
      return {
        method: request?.[1] ?? '',
        path: request?.[2] ?? '',
        status: Number(status?.[1] ?? 0),
        upstream: tried.at(-1) ?? '',
        tried,
        upstreamStatus: field('upstream_status'),
        requestId: field('request_id'),
        // nginx's whole time for the request ($request_time, in seconds with ms precision).
        requestMs: Number(field('request_time')) * 1000,
        raw: line,
      };
    });
}
