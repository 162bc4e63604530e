import { z } from 'zod';

// A UTF-16 surrogate that is not half of a pair. Without the `u` flag the pattern runs over
// code units, so it sees the lone halves a JSON "\ud800" escape produces.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The issue every refused string carries (the service phrases it as "The <field> field …"). */
export const UNSTORABLE_TEXT_MESSAGE = 'must not contain NUL (U+0000) or unpaired surrogate characters';

/**
 * True when PostgreSQL can store the string in text and jsonb: no U+0000 (22021 / 22P05)
 * and no lone surrogate (22P02 / 22P05). Every wire string must pass this.
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
}

/** Adds the storable-text rule to a string schema (`z.email()`, `z.url()`, …); returns the same schema. */
export function storable<T extends z.ZodType<string>>(schema: T): T {
  return schema.refine(isStorableText, { message: UNSTORABLE_TEXT_MESSAGE });
}

/** The wire string: `z.string()` that refuses NUL and lone surrogates. Use it for every string field. */
export function zText() {
  return storable(z.string());
}

/**
 * Every place in a JSON-like value (strings, object keys, nested arrays and objects) holding
 * text PostgreSQL cannot store, as paths of keys and indexes; `[]` is the value itself.
 */
export function findUnstorableText(value: unknown, path: ReadonlyArray<string | number> = []) {
  const found: Array<Array<string | number>> = [];
  const visit = (node: unknown, at: Array<string | number>, depth: number): void => {
    // Parsed JSON is a tree; the depth cap only guards against a cyclic value handed in by code.
    if (depth > 64) return;
    if (typeof node === 'string') {
      if (!isStorableText(node)) found.push(at);
    } else if (Array.isArray(node)) {
      node.forEach((item, index) => {
        visit(item, [...at, index], depth + 1);
      });
    } else if (typeof node === 'object' && node !== null && !(node instanceof Uint8Array)) {
      for (const [key, item] of Object.entries(node)) {
        if (!isStorableText(key)) found.push([...at, key]);
        else visit(item, [...at, key], depth + 1);
      }
    }
  };
  visit(value, [...path], 0);
  return found;
}

/** A JSON value whose strings and keys are all storable (for `z.unknown()` members that reach jsonb). */
export function zStorableJson() {
  return z.unknown().superRefine((value, context) => {
    for (const path of findUnstorableText(value)) {
      context.addIssue({ code: 'custom', message: UNSTORABLE_TEXT_MESSAGE, path });
    }
  });
}
