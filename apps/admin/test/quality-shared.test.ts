import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ZKbSettingsUpdate } from '@service/contract';
import {
  decisionText,
  deltaText,
  draftAnswerOf,
  filterOf,
  isRunBusy,
  kbSettingsBody,
  linesOf,
  metricCells,
  questionsQuery,
} from '../src/routes/quality-shared.js';

// The quality screens' pure parts: the list query of a filter, what a form starts from, how
// metrics read, and the KB settings form's PATCH body (checked with the contract's own schema).

describe('questions filter', () => {
  it('defaults to the open questions of any reason; unknown values read as all', () => {
    assert.deepEqual(filterOf({}), { status: 'open', reason: 'all' });
    assert.deepEqual(filterOf({ status: 'resolved', reason: 'rated_down' }), {
      status: 'resolved',
      reason: 'rated_down',
    });
    assert.deepEqual(filterOf({ status: 'all' }), { status: 'all', reason: 'all' });
    assert.deepEqual(filterOf({ status: '<script>', reason: "' or 1=1" }), { status: 'all', reason: 'all' });
  });

  it('sends only the filters chosen, newest first, with the page size and cursor', () => {
    assert.equal(questionsQuery({ status: 'all', reason: 'all' }, 25, null), '?order=desc&limit=25');
    assert.equal(
      questionsQuery({ status: 'open', reason: 'no_match' }, 25, 'a+b/c='),
      '?status=open&reason=no_match&order=desc&limit=25&cursor=a%2Bb%2Fc%3D',
    );
  });
});

describe('prefilled correction', () => {
  it("starts from the agent's answer when it gave one, empty when it said it did not know", () => {
    assert.equal(draftAnswerOf({ answer: 'Ten days.', reasons: ['rated_down'] }), 'Ten days.');
    assert.equal(draftAnswerOf({ answer: 'Ten days.', reasons: ['handoff'] }), 'Ten days.');
    assert.equal(draftAnswerOf({ answer: 'I don’t know.', reasons: ['no_match', 'fallback'] }), '');
    assert.equal(draftAnswerOf({ answer: 'I don’t know.', reasons: ['fallback', 'rated_down'] }), '');
  });
});

describe('metrics and decisions', () => {
  it('shows recall as a percentage, MRR to three places, dashes before a run is done', () => {
    assert.deepEqual(metricCells({ questions: 4, recall_at_1: 0.75, recall_at_5: 1, mrr: 0.8333 }), {
      questions: '4',
      recall1: '75.0 %',
      recall5: '100.0 %',
      mrr: '0.833',
    });
    assert.deepEqual(metricCells(null), { questions: '—', recall1: '—', recall5: '—', mrr: '—' });
  });

  it('signs a change against the previous done run, and says nothing without one or without change', () => {
    assert.equal(deltaText(0.8, 0.75), '+5.0 pts');
    assert.equal(deltaText(0.5, 0.75), '−25.0 pts');
    assert.equal(deltaText(0.75, 0.75), null);
    assert.equal(deltaText(0.75, undefined), null);
  });

  it('says what would answer a tested question', () => {
    assert.match(decisionText({ decision: 'correction', correction: null }), /correction answers/);
    assert.match(decisionText({ decision: 'chunks', correction: null }), /from its knowledge/);
    assert.match(decisionText({ decision: 'no_match', correction: null }), /does not know/);
  });

  it('keeps polling only while a run is queued or running', () => {
    assert.deepEqual(
      ['queued', 'running', 'done', 'failed'].map((status) => isRunBusy({ status })),
      [true, true, false, false],
    );
  });

  it('reads expected pages one a line, blank lines and spaces dropped', () => {
    assert.deepEqual(linesOf(' https://a.example/x \n\n  doc_1\n'), ['https://a.example/x', 'doc_1']);
    assert.deepEqual(linesOf(''), []);
  });
});

describe('KB settings body', () => {
  it('clears blank optional fields with null and passes the contract schema', () => {
    const body = kbSettingsBody({ title: ' Help ', logo_url: '  ', color: '#1F6FEB', widget_agent_id: '' });
    assert.deepEqual(body, { title: ' Help ', logo_url: null, color: '#1F6FEB', widget_agent_id: null });
    const parsed = ZKbSettingsUpdate.parse(body);
    assert.equal(parsed.title, 'Help');
  });

  it('is refused by the schema for hostile logos, as the page shows beside the field', () => {
    for (const logo of [
      'javascript:alert(1)',
      'data:image/svg+xml,<svg>',
      'http://x.example/l.png',
      '//evil.example/l.png',
      '/\\evil',
    ]) {
      const result = ZKbSettingsUpdate.safeParse(
        kbSettingsBody({ title: '', logo_url: logo, color: '', widget_agent_id: '' }),
      );
      assert.equal(result.success, false, logo);
      assert.deepEqual(
        result.error?.issues.map((issue) => issue.path.join('.')),
        ['logo_url'],
      );
    }
  });
});
