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
  type Step = { node: unknown; key: string | number | null; parent: Step | null };
  const pathOf = (step: Step | null, key?: string): Array<string | number> => {
    const keys: Array<string | number> = key === undefined ? [] : [key];
    for (let at = step; at !== null && at.key !== null; at = at.parent) keys.push(at.key);
    return [...path, ...keys.reverse()];
  };
  const found: Array<Array<string | number>> = [];
  // An explicit stack with parent links, not recursion or copied paths: a body nested a
  // million levels deep costs linear time and cannot overflow the call stack.
  const pending: Step[] = [{ node: value, key: null, parent: null }];
  for (let step = pending.pop(); step !== undefined; step = pending.pop()) {
    const { node } = step;
    if (typeof node === 'string') {
      if (!isStorableText(node)) found.push(pathOf(step));
    } else if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index -= 1)
        pending.push({ node: node[index], key: index, parent: step });
    } else if (typeof node === 'object' && node !== null && !ArrayBuffer.isView(node)) {
      for (const [key, item] of Object.entries(node).reverse()) {
        if (!isStorableText(key)) found.push(pathOf(step, key));
        else pending.push({ node: item, key, parent: step });
      }
    }
  }
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
