import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_THEME, type TAgent } from '@service/contract';
import {
  allowsAnySite,
  bodyOf,
  changesOf,
  draftErrors,
  draftOf,
  isDirty,
  originErrors,
} from '../src/routes/agent-settings-draft.js';

// The settings form's state → the PATCH body, checked with the contract's own schema.

const AGENT: TAgent = {
  id: '01J0000000000000000000000A',
  name: 'Shop helper',
  site_type: 'generic',
  language_default: null,
  is_published: true,
  allowed_origins: ['https://shop.example.com'],
  theme: { ...DEFAULT_THEME },
  system_prompt: '',
  behavior_rules: [{ trigger: 'scroll', threshold: 50, action: 'open' }],
  auto_index_pages: false,
  widget_features: { leads: true, human: true, satisfaction: false },
  welcome: {
    greeting: 'Hi!',
    starters: ['Where is my order?'],
    translations: { de: { greeting: 'Hallo!' } },
  },
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:00:00.000Z',
};

describe('agent settings draft', () => {
  it('round-trips a stored agent: nothing to save, nothing wrong', () => {
    const draft = draftOf(AGENT);
    assert.equal(isDirty(draft, AGENT), false);
    assert.deepEqual(draftErrors(draft), {});
    assert.deepEqual(bodyOf(draft).behavior_rules, [{ trigger: 'scroll', threshold: 50, action: 'open' }]);
    assert.equal(bodyOf(draft).language_default, null);
  });

  it('sends only the fields that changed, each whole', () => {
    const draft = draftOf(AGENT);
    assert.deepEqual(changesOf(draft, AGENT), {});
    const edited = { ...draft, name: 'Barista', theme: { ...draft.theme, radius: '4' } };
    assert.deepEqual(changesOf(edited, AGENT), {
      name: 'Barista',
      theme: { ...DEFAULT_THEME, radius: 4 },
    });
  });

  it('edits the welcome: starters one per line, translations kept, at most four', () => {
    const draft = draftOf(AGENT);
    const edited = { ...draft, welcome: { ...draft.welcome, starters: ' Returns? \n\nShipping?\n' } };
    assert.deepEqual(changesOf(edited, AGENT), {
      welcome: {
        greeting: 'Hi!',
        starters: ['Returns?', 'Shipping?'],
        translations: { de: { greeting: 'Hallo!' } },
      },
    });
    const five = { ...draft, welcome: { ...draft.welcome, starters: 'a\nb\nc\nd\ne' } };
    assert.deepEqual(draftErrors(five), { 'welcome.starters': ['Enter at most 4 questions, one per line.'] });
    const long = { ...draft, welcome: { ...draft.welcome, greeting: 'x'.repeat(301) } };
    assert.deepEqual(Object.keys(draftErrors(long)), ['welcome.greeting']);
  });

  it('names each refused origin line by its line number and its key in the sent list', () => {
    const text =
      'https://shop.example.com\n\n  shop.example.com/path \n*\nhttps://u:p@x.example\njavascript:alert(1)';
    assert.deepEqual(Object.keys(originErrors(text)), [
      'allowed_origins.1',
      'allowed_origins.3',
      'allowed_origins.4',
    ]);
    assert.match(originErrors(text)['allowed_origins.1']?.[0] ?? '', /^Line 3: “shop\.example\.com\/path”/);
    assert.equal(allowsAnySite(text), true);
    assert.equal(allowsAnySite('https://shop.example.com\n* .example.com'), false);
    // The contract's schema agrees on which entries are wrong.
    const draft = { ...draftOf(AGENT), origins: text };
    const keys = Object.keys(draftErrors(draft)).filter((key) => key.startsWith('allowed_origins'));
    assert.deepEqual(keys.sort(), Object.keys(originErrors(text)).sort());
  });

  it('says what to type for a radius, a threshold, a colour and a message rule without message', () => {
    const base = draftOf(AGENT);
    const draft = {
      ...base,
      theme: { ...base.theme, radius: '12px', primary: 'blue' },
      rules: [
        { key: 1, trigger: 'idle' as const, threshold: 'soon', action: 'open' as const, message: '' },
        { key: 2, trigger: 'exit_intent' as const, threshold: '', action: 'message' as const, message: '  ' },
        { key: 3, trigger: 'scroll' as const, threshold: '101', action: 'open' as const, message: '' },
      ],
    };
    const errors = draftErrors(draft);
    assert.deepEqual(errors['theme.radius'], ['Enter a whole number from 0 to 32.']);
    assert.ok(errors['theme.primary']?.[0]?.includes('hex colour'));
    assert.ok(errors['behavior_rules.0.threshold']?.length, JSON.stringify(errors));
    assert.deepEqual(errors['behavior_rules.1.message'], ['A message rule needs a message.']);
    assert.deepEqual(errors['behavior_rules.2.threshold'], ['Scroll depth is a percentage (1–100).']);
    assert.equal(isDirty(draft, AGENT), true);
  });

  it('eleven rules are refused by the contract', () => {
    const base = draftOf(AGENT);
    const rule = {
      key: 0,
      trigger: 'exit_intent' as const,
      threshold: '',
      action: 'open' as const,
      message: '',
    };
    const errors = draftErrors({
      ...base,
      rules: Array.from({ length: 11 }, (_, key) => ({ ...rule, key })),
    });
    assert.ok(errors.behavior_rules?.length, JSON.stringify(errors));
    assert.deepEqual(
      draftErrors({ ...base, rules: Array.from({ length: 10 }, (_, key) => ({ ...rule, key })) }),
      {},
    );
  });
});
