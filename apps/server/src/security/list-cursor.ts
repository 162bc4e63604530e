import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { isId } from './ids.js';

/** What a cursor is bound to: the list it pages, the workspace, and the parent record (an agent's sources). */
export type CursorBinding = { list: string; workspaceId: string; parentId?: string | undefined };

/** The MAC is cut to 128 bits: enough against forgery, short enough for a query string. */
const MAC_BYTES = 16;
const CURSOR_PATTERN = /^([0-9A-HJKMNP-TV-Z]{26})\.([A-Za-z0-9_-]{22})$/;

/** The key list cursors are signed with, derived from APP_KEY (a key of its own, never the master). */
export function listCursorKey(appKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', appKey, Buffer.alloc(0), 'svc-list-cursor-v1', 32));
}

function macOf(key: Buffer, binding: CursorBinding, lastId: string): Buffer {
  // Newline-separated: none of the parts (ids and list names) can contain one.
  const message = ['v1', binding.list, binding.workspaceId, binding.parentId ?? '', lastId].join('\n');
  return createHmac('sha256', key).update(message).digest().subarray(0, MAC_BYTES);
}

/** An opaque cursor that resumes after `lastId`: the id and a MAC over it and its binding. */
export function encodeListCursor(key: Buffer, binding: CursorBinding, lastId: string): string {
  return `${lastId}.${macOf(key, binding, lastId).toString('base64url')}`;
}

/**
 * The id a cursor resumes after, or null when the cursor was not made by this service for this
 * list in this workspace (edited, forged, from another workspace, list or agent, or signed with
 * an APP_KEY since rotated).
 */
export function decodeListCursor(key: Buffer, binding: CursorBinding, cursor: string): string | null {
  const match = CURSOR_PATTERN.exec(cursor);
  const lastId = match?.[1];
  const given = match?.[2];
  if (!lastId || !given || !isId(lastId)) return null;
  // Compared as text: base64url's last character carries spare bits that decoding ignores, so
  // comparing decoded bytes would accept several spellings of one MAC.
  const mac = Buffer.from(given);
  const expected = Buffer.from(macOf(key, binding, lastId).toString('base64url'));
  return mac.length === expected.length && timingSafeEqual(mac, expected) ? lastId : null;
}
