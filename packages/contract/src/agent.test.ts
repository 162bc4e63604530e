import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { z } from 'zod';
import { DEFAULT_THEME, ZAgentCreate, ZAgentUpdate, ZTheme } from './agent.js';

/** The issue paths of a failed parse, dotted (`theme.radius`, `allowed_origins.1`); [] on success. */
function issuePaths(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

/** Parses and returns the data, failing the test with zod's issues otherwise. */
function parseOk<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  assert.ok(result.success, result.success ? '' : JSON.stringify(result.error.issues));
  return result.data;
}

/** `n` distinct valid origins. */
function origins(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `https://shop${i}.example.com`);
}

describe('ZAgentCreate', () => {
  test('needs only a name and leaves every other field unset (the service applies defaults)', () => {
    assert.deepEqual(parseOk(ZAgentCreate, { name: 'Helper' }), { name: 'Helper' });
    assert.deepEqual(issuePaths(ZAgentCreate, {}), ['name']);
  });

  test('trims the name and enforces 1..120 characters', () => {
    assert.equal(parseOk(ZAgentCreate, { name: '  Helper  ' }).name, 'Helper');
    assert.equal(parseOk(ZAgentCreate, { name: 'n'.repeat(120) }).name.length, 120);
    assert.deepEqual(issuePaths(ZAgentCreate, { name: 'n'.repeat(121) }), ['name']);
    assert.deepEqual(issuePaths(ZAgentCreate, { name: '   ' }), ['name']);
  });

  test('the default theme is itself a valid, frozen theme', () => {
    assert.deepEqual(parseOk(ZTheme, DEFAULT_THEME), DEFAULT_THEME);
    assert.ok(Object.isFrozen(DEFAULT_THEME));
  });

  test('rejects unknown keys, including workspace_id and unknown theme keys', () => {
    assert.deepEqual(issuePaths(ZAgentCreate, { name: 'x', workspace_id: 'ws_other' }), ['']);
    const result = ZAgentCreate.safeParse({ name: 'x', workspace_id: 'w', id: 'a', created_at: 'now' });
    assert.equal(result.success, false);
    const keys = result.error?.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys' ? issue.keys : [],
    );
    assert.deepEqual(keys?.sort(), ['created_at', 'id', 'workspace_id']);
    assert.deepEqual(issuePaths(ZAgentCreate, { name: 'x', theme: { font: 'Comic Sans' } }), ['theme']);
  });

  test('rejects unknown site types and non-boolean is_published', () => {
    assert.equal(parseOk(ZAgentCreate, { name: 'x', site_type: 'ecommerce' }).site_type, 'ecommerce');
    assert.deepEqual(issuePaths(ZAgentCreate, { name: 'x', site_type: 'blog' }), ['site_type']);
    assert.deepEqual(issuePaths(ZAgentCreate, { name: 'x', is_published: 'yes' }), ['is_published']);
  });

  test('accepts 3- and 6-digit hex colours in either case and nothing else', () => {
    for (const colour of ['#abc', '#ABC', '#1a73e8', '#1A73E8']) {
      assert.equal(parseOk(ZAgentCreate, { name: 'x', theme: { primary: colour } }).theme?.primary, colour);
    }
    for (const colour of ['abc', '#ab', '#abcd', '#1a73e', '#1a73e80', '#ggg', 'red', 'rgb(0,0,0)', '']) {
      assert.deepEqual(
        issuePaths(ZAgentCreate, { name: 'x', theme: { accent: colour } }),
        ['theme.accent'],
        colour,
      );
    }
  });

  test('takes a radius of 0..32 whole pixels', () => {
    assert.equal(parseOk(ZAgentCreate, { name: 'x', theme: { radius: 0 } }).theme?.radius, 0);
    assert.equal(parseOk(ZAgentCreate, { name: 'x', theme: { radius: 32 } }).theme?.radius, 32);
    for (const radius of [33, -1, 1.5, '12']) {
      assert.deepEqual(
        issuePaths(ZAgentCreate, { name: 'x', theme: { radius } }),
        ['theme.radius'],
        String(radius),
      );
    }
  });

  test('takes a launcher label of 1..40 characters after trimming', () => {
    const label40 = 'l'.repeat(40);
    assert.equal(
      parseOk(ZAgentCreate, { name: 'x', theme: { launcher_label: label40 } }).theme?.launcher_label,
      label40,
    );
    assert.equal(
      parseOk(ZAgentCreate, { name: 'x', theme: { launcher_label: `  ${label40}  ` } }).theme?.launcher_label,
      label40,
    );
    assert.deepEqual(issuePaths(ZAgentCreate, { name: 'x', theme: { launcher_label: 'l'.repeat(41) } }), [
      'theme.launcher_label',
    ]);
    assert.deepEqual(issuePaths(ZAgentCreate, { name: 'x', theme: { launcher_label: '  ' } }), [
      'theme.launcher_label',
    ]);
  });

  test('accepts only the two launcher positions', () => {
    assert.equal(
      parseOk(ZAgentCreate, { name: 'x', theme: { position: 'bottom-left' } }).theme?.position,
      'bottom-left',
    );
    assert.deepEqual(issuePaths(ZAgentCreate, { name: 'x', theme: { position: 'top-left' } }), [
      'theme.position',
    ]);
  });

  test('lower-cases and trims the language tag; null clears it', () => {
    assert.equal(parseOk(ZAgentCreate, { name: 'x', language_default: 'pt-BR' }).language_default, 'pt-br');
    assert.equal(parseOk(ZAgentCreate, { name: 'x', language_default: ' EN ' }).language_default, 'en');
    assert.equal(
      parseOk(ZAgentCreate, { name: 'x', language_default: 'zh-Hant-TW' }).language_default,
      'zh-hant-tw',
    );
    assert.equal(parseOk(ZAgentCreate, { name: 'x', language_default: null }).language_default, null);
    for (const tag of ['e', 'english', 'en_US', 'en-', '', '12']) {
      assert.deepEqual(
        issuePaths(ZAgentCreate, { name: 'x', language_default: tag }),
        ['language_default'],
        tag,
      );
    }
  });

  test('normalises allowed_origins and removes duplicates, keeping first-seen order', () => {
    const parsed = parseOk(ZAgentCreate, {
      name: 'x',
      allowed_origins: [
        'HTTPS://Shop.Example.com:443/',
        'http://localhost:3000',
        'https://shop.example.com',
        '*',
        ' * ',
      ],
    });
    assert.deepEqual(parsed.allowed_origins, ['https://shop.example.com', 'http://localhost:3000', '*']);
    assert.deepEqual(parseOk(ZAgentCreate, { name: 'x', allowed_origins: [] }).allowed_origins, []);
  });

  test('names each invalid allowed_origins entry by its index', () => {
    assert.deepEqual(
      issuePaths(ZAgentCreate, {
        name: 'x',
        allowed_origins: ['https://ok.example.com', 'https://example.com/path', 'ftp://example.com'],
      }),
      ['allowed_origins.1', 'allowed_origins.2'],
    );
    assert.deepEqual(issuePaths(ZAgentCreate, { name: 'x', allowed_origins: 'https://example.com' }), [
      'allowed_origins',
    ]);
  });

  test('takes at most 50 allowed_origins entries (counted before de-duplication)', () => {
    assert.equal(
      parseOk(ZAgentCreate, { name: 'x', allowed_origins: origins(50) }).allowed_origins?.length,
      50,
    );
    assert.deepEqual(issuePaths(ZAgentCreate, { name: 'x', allowed_origins: origins(51) }), [
      'allowed_origins',
    ]);
    const repeated = Array.from({ length: 51 }, () => 'https://example.com');
    assert.deepEqual(issuePaths(ZAgentCreate, { name: 'x', allowed_origins: repeated }), ['allowed_origins']);
  });

  test('takes allowed_origins entries of at most 300 characters', () => {
    const at300 = `https://${'a'.repeat(292)}`;
    assert.equal(at300.length, 300);
    assert.deepEqual(parseOk(ZAgentCreate, { name: 'x', allowed_origins: [at300] }).allowed_origins, [at300]);
    assert.deepEqual(issuePaths(ZAgentCreate, { name: 'x', allowed_origins: [`${at300}a`] }), [
      'allowed_origins.0',
    ]);
  });

  test('takes a system prompt of at most 8000 characters', () => {
    assert.equal(
      parseOk(ZAgentCreate, { name: 'x', system_prompt: 'p'.repeat(8000) }).system_prompt?.length,
      8000,
    );
    assert.deepEqual(issuePaths(ZAgentCreate, { name: 'x', system_prompt: 'p'.repeat(8001) }), [
      'system_prompt',
    ]);
  });
});

describe('ZAgentUpdate', () => {
  test('accepts an empty patch and any subset of fields, leaving the rest unset', () => {
    assert.deepEqual(parseOk(ZAgentUpdate, {}), {});
    assert.deepEqual(parseOk(ZAgentUpdate, { is_published: true }), { is_published: true });
    assert.deepEqual(parseOk(ZAgentUpdate, { theme: { radius: 0 } }), { theme: { radius: 0 } });
  });

  test('applies the same rules as create to the fields it is given', () => {
    assert.deepEqual(issuePaths(ZAgentUpdate, { name: '' }), ['name']);
    assert.deepEqual(issuePaths(ZAgentUpdate, { theme: { radius: 33 } }), ['theme.radius']);
    assert.deepEqual(issuePaths(ZAgentUpdate, { theme: { launcher_label: 'l'.repeat(41) } }), [
      'theme.launcher_label',
    ]);
    assert.deepEqual(issuePaths(ZAgentUpdate, { allowed_origins: origins(51) }), ['allowed_origins']);
    assert.equal(parseOk(ZAgentUpdate, { language_default: 'PT-br' }).language_default, 'pt-br');
    assert.deepEqual(
      parseOk(ZAgentUpdate, { allowed_origins: ['https://A.com/', 'https://a.com'] }).allowed_origins,
      ['https://a.com'],
    );
  });

  test('rejects unknown keys, including workspace_id and read-only fields', () => {
    for (const key of ['workspace_id', 'id', 'created_at', 'updated_at']) {
      assert.deepEqual(issuePaths(ZAgentUpdate, { [key]: 'x' }), [''], key);
    }
    assert.deepEqual(issuePaths(ZAgentUpdate, { theme: { colour: '#fff' } }), ['theme']);
  });
});

describe('ZBehaviorRules', () => {
  test('a message rule needs its message whatever the trigger, exit intent included', () => {
    for (const trigger of ['exit_intent', 'scroll', 'idle', 'time_on_page'] as const) {
      const threshold = trigger === 'exit_intent' ? {} : { threshold: 10 };
      assert.deepEqual(
        issuePaths(ZAgentUpdate, { behavior_rules: [{ trigger, ...threshold, action: 'message' }] }),
        ['behavior_rules.0.message'],
        trigger,
      );
      assert.deepEqual(
        issuePaths(ZAgentUpdate, { behavior_rules: [{ trigger, ...threshold, action: 'open' }] }),
        [],
        trigger,
      );
    }
  });

  test('exit intent takes no threshold check; scroll stops at 100 %; at most 10 rules', () => {
    const exit = { trigger: 'exit_intent', action: 'message', message: 'Wait!' };
    assert.deepEqual(issuePaths(ZAgentUpdate, { behavior_rules: [exit] }), []);
    assert.deepEqual(
      issuePaths(ZAgentUpdate, { behavior_rules: [{ trigger: 'scroll', threshold: 101, action: 'open' }] }),
      ['behavior_rules.0.threshold'],
    );
    assert.deepEqual(issuePaths(ZAgentUpdate, { behavior_rules: Array(10).fill(exit) }), []);
    assert.deepEqual(issuePaths(ZAgentUpdate, { behavior_rules: Array(11).fill(exit) }), ['behavior_rules']);
  });
});
