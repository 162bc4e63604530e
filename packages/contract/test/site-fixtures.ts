import assert from 'node:assert/strict';
import type { z } from 'zod';

/** Shared records for the site schema tests. */
export const post = {
  wp_id: 42,
  post_type: 'post',
  permalink: 'https://shop.example.com/blog/returns/',
  title: 'Returns policy',
  content_html: '<p>Return any item within 30 days.</p>',
  content_hash: '9f86d081884c7d659a2feaa0c55ad015',
  modified_at: '2026-11-01T10:00:00+00:00',
};

export const product = {
  wp_id: 7,
  name: 'Blue mug',
  permalink: 'https://shop.example.com/product/blue-mug/',
  stock_status: 'instock',
  content_hash: 'ab12cd34ef56ab12',
  modified_at: '2026-11-01T10:00:00+01:00',
};

export const common = {
  agent_id: '01JBX8Q3V2M7K9T4R6W1Y5Z0AC',
  site_url: 'https://shop.example.com',
  plugin_version: '1.4.0',
};

/** The dotted paths of a failed parse (what the service puts under `errors`). */
export function errorPaths(result: z.ZodSafeParseResult<unknown>): string[] {
  assert.equal(result.success, false, 'expected the parse to fail');
  return result.error ? result.error.issues.map((issue) => issue.path.map(String).join('.')) : [];
}

/** A copy of a record without one of its fields. */
export function without(record: Record<string, unknown>, key: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([name]) => name !== key));
}
