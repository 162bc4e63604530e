import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ZAgentCreate } from './agent.js';
import { ZPostsSync } from './site.js';
import {
  findUnstorableText,
  isStorableText,
  storable,
  UNSTORABLE_TEXT_MESSAGE,
  zStorableJson,
  zText,
} from './text.js';
import { ZWidgetInitRequest } from './widget.js';

const NUL = '\u0000';
const HIGH = '\uD800';
const LOW = '\uDC00';

describe('isStorableText', () => {
  it('accepts ordinary text, astral characters (whole pairs) and other control characters', () => {
    for (const text of ['', 'plain', 'ünïcödé', '😀', `a${HIGH}${LOW}b`, '\u0001\t\n\u007f', '\uFFFF'])
      assert.equal(isStorableText(text), true, JSON.stringify(text));
  });

  it('refuses U+0000 anywhere', () => {
    for (const text of [NUL, `a${NUL}`, `${NUL}a`, `a${NUL}b`, `😀${NUL}`])
      assert.equal(isStorableText(text), false);
  });

  it('refuses a lone high or low surrogate at either edge, and a pair written backwards', () => {
    for (const text of [
      HIGH,
      LOW,
      `a${HIGH}`,
      `${LOW}a`,
      `${HIGH}a${LOW}`,
      `${LOW}${HIGH}`,
      `${HIGH}${HIGH}${LOW}`,
    ])
      assert.equal(isStorableText(text), false, JSON.stringify(text));
  });

  it('agrees with String.prototype.isWellFormed wherever the runtime has it', () => {
    const probe: unknown = Reflect.get(String.prototype, 'isWellFormed');
    if (typeof probe !== 'function') return;
    for (const text of ['a', HIGH, LOW, `${HIGH}${LOW}`, `${LOW}${HIGH}`, `x${HIGH}${HIGH}${LOW}`])
      assert.equal(isStorableText(text), Reflect.apply(probe, text, []), JSON.stringify(text));
  });
});

describe('zText, storable and zStorableJson', () => {
  it('zText refuses NUL and lone surrogates with the shared message, and keeps chained limits', () => {
    const schema = zText().min(1).max(3);
    assert.equal(schema.safeParse('abc').success, true);
    for (const bad of [NUL, HIGH, `a${LOW}`]) {
      const result = schema.safeParse(bad);
      assert.equal(result.success, false);
      assert.ok(result.error?.issues.some((issue) => issue.message === UNSTORABLE_TEXT_MESSAGE));
    }
    // The limit still holds at its edge: 3 passes above, 4 fails.
    assert.equal(schema.safeParse('abcd').success, false);
  });

  it('storable() wraps format schemas that return the input unchanged (URLs, emails)', () => {
    const url = storable(z.url());
    assert.equal(url.safeParse('https://example.com/a').success, true);
    assert.equal(
      z.url().safeParse(`https://example.com/${NUL}`).success,
      true,
      'z.url() alone lets NUL through',
    );
    assert.equal(url.safeParse(`https://example.com/${NUL}`).success, false);
    assert.equal(url.safeParse(`https://example.com/${HIGH}`).success, false);
  });

  it('zStorableJson names the path of each bad string or key in nested JSON', () => {
    const result = z.object({ meta: zStorableJson() }).safeParse({
      meta: { ok: 'fine', list: ['x', `y${NUL}`], [`k${HIGH}`]: 1, deep: { z: LOW } },
    });
    assert.equal(result.success, false);
    const paths = result.error?.issues.map((issue) => issue.path.join('.')).sort();
    assert.deepEqual(paths, ['meta.deep.z', `meta.k${HIGH}`, 'meta.list.1']);
  });

  it('findUnstorableText walks arrays, objects and keys, and nothing else', () => {
    assert.deepEqual(findUnstorableText({ a: [1, true, null, 'ok'] }), []);
    assert.deepEqual(findUnstorableText(NUL), [[]]);
    assert.deepEqual(findUnstorableText({ a: [{ b: NUL }] }, ['body']), [['body', 'a', 0, 'b']]);
  });
});

describe('contract schemas refuse unstorable text', () => {
  it('in a wire body the SDK and the widget reuse', () => {
    const init = ZWidgetInitRequest.safeParse({ agent_id: NUL, anon_id: 'anon-1' });
    assert.equal(init.success, false);
    assert.ok(
      init.error?.issues.some(
        (i) => i.path.join('.') === 'agent_id' && i.message === UNSTORABLE_TEXT_MESSAGE,
      ),
    );
    const agent = ZAgentCreate.safeParse({ name: `Bot${HIGH}` });
    assert.equal(agent.success, false);
    assert.ok(agent.error?.issues.some((i) => i.path.join('.') === 'name'));
    const posts = ZPostsSync.safeParse({
      agent_id: 'a',
      site_url: 'https://s.example',
      posts: [{ title: NUL }],
    });
    assert.ok(
      posts.error?.issues.some(
        (i) => i.path.join('.') === 'posts.0.title' && i.message === UNSTORABLE_TEXT_MESSAGE,
      ),
    );
    assert.equal(posts.success, false);
  });

  // Lint-like: a plain z.string() / z.email() / z.url() in a wire schema would let NUL through.
  it('no contract source uses a bare string schema (use zText() or storable(...))', () => {
    const dir = dirname(fileURLToPath(import.meta.url));
    const offenders: string[] = [];
    for (const file of readdirSync(dir)) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts') || file === 'text.ts') continue;
      // Join a chain broken over lines (`z\n  .url(`) so the scan sees it.
      readFileSync(join(dir, file), 'utf8')
        .replace(/\bz\s*\n\s*\./g, 'z.')
        .split('\n')
        .forEach((line, index) => {
          const bare = line.match(/(?<!storable\()z\.(string|email|url|unknown|any|json)\(/g);
          if (bare && !line.includes('zText().trim().pipe(z.email('))
            offenders.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    assert.deepEqual(offenders, []);
  });
});

describe('findUnstorableText on hostile shapes', () => {
  it('walks a value nested 200,000 levels deep without overflowing, and finds the NUL at the bottom', () => {
    const depth = 200_000;
    const parsed: unknown = JSON.parse(`${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}`);
    const found = findUnstorableText(parsed);
    assert.equal(found.length, 1);
    assert.equal(found[0]?.length, depth);
  });
});
