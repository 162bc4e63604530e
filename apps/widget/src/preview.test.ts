/// <reference types="node" />
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type TWidgetPreviewMessage,
  WIDGET_PREVIEW_AGENT,
  WIDGET_PREVIEW_READY,
  ZWidgetPreviewMessage,
} from '@service/contract';
import { PREVIEW_AGENT, PREVIEW_READY, previewOf } from './preview.js';

const THEME = {
  position: 'bottom-left',
  primary: '#112233',
  accent: '#abc',
  radius: 8,
  launcher_label: 'Ask us',
};
const message = (extra: Record<string, unknown> = {}) => ({
  type: PREVIEW_AGENT,
  agent: {
    name: 'Shop helper',
    language_default: 'de',
    theme: THEME,
    features: { leads: true, human: false, satisfaction: true },
  },
  samples: [
    { role: 'assistant', text: 'Hello' },
    { role: 'visitor', text: 'Hi' },
  ],
  note: 'Preview only',
  ...extra,
});

describe('previewOf: what a preview message may carry', () => {
  it('speaks the contract: the same message types, and reads what the console sends', () => {
    assert.equal(PREVIEW_AGENT, WIDGET_PREVIEW_AGENT);
    assert.equal(PREVIEW_READY, WIDGET_PREVIEW_READY);
    const sent: TWidgetPreviewMessage = ZWidgetPreviewMessage.parse(message());
    assert.equal(previewOf(sent)?.theme.primary, THEME.primary);
  });

  it('reads a well-formed message', () => {
    assert.deepEqual(previewOf(message()), {
      name: 'Shop helper',
      languageDefault: 'de',
      theme: THEME,
      features: { leads: true, human: false, satisfaction: true },
      samples: [
        { role: 'assistant', text: 'Hello' },
        { role: 'visitor', text: 'Hi' },
      ],
      note: 'Preview only',
    });
  });

  it('ignores anything that is not a preview message', () => {
    for (const data of [
      null,
      'service-widget-preview:agent',
      [],
      { type: 'other', agent: message().agent },
      { type: PREVIEW_AGENT },
      { type: PREVIEW_AGENT, agent: { name: 'x' } },
      { type: PREVIEW_AGENT, agent: { name: 'x', theme: { ...THEME, radius: '8' } } },
    ]) {
      assert.equal(previewOf(data), null, JSON.stringify(data));
    }
  });

  it('keeps only known roles and string text, caps lengths, and reads features as strict booleans', () => {
    const preview = previewOf(
      message({
        samples: [
          { role: 'system', text: 'no' },
          { role: 'visitor', text: 'x'.repeat(600) },
          { role: 'assistant', text: { html: '<b>' } },
          'assistant',
          ...Array.from({ length: 20 }, () => ({ role: 'assistant', text: 'many' })),
        ],
        note: 'n'.repeat(300),
        agent: {
          name: 7,
          language_default: 42,
          theme: { ...THEME, primary: '#1122334455', launcher_label: 'L'.repeat(99) },
          features: { leads: 'yes', human: 1, satisfaction: true },
        },
      }),
    );
    assert.ok(preview);
    assert.deepEqual(
      preview.samples.map((sample) => [sample.role, sample.text.length]),
      [
        ['visitor', 500],
        ['assistant', 0],
        ['assistant', 4],
        ['assistant', 4],
        ['assistant', 4],
        ['assistant', 4],
        ['assistant', 4],
        ['assistant', 4],
      ],
    );
    assert.equal(preview.note.length, 200);
    assert.equal(preview.name, '');
    assert.equal(preview.languageDefault, null);
    assert.equal(preview.theme.primary, '#112233', 'cut to a hex length; applyLook checks the form');
    assert.equal(preview.theme.launcher_label.length, 40);
    assert.deepEqual(preview.features, { leads: false, human: false, satisfaction: true });
  });
});
