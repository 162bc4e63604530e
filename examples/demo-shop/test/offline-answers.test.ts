// The offline composer measured on the demo shop: every visitor question of the fixture asked
// through the widget's answer path, over the shop's content synced by the site plugin and
// indexed by the real pipeline, with no model.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { formProblems, loadQuestions, score, table, type Verdict } from './support/answer-score.js';
import { type IndexedDemo, startIndexedDemo } from './support/indexed-demo.js';

describe('offline answers over the demo shop', () => {
  let demo: IndexedDemo;
  before(async () => {
    demo = await startIndexedDemo();
  });
  after(async () => {
    await demo?.close();
  });

  test('the question set passes at 90 % or more, with no repeated quote and no raw markup anywhere', async () => {
    const verdicts: Verdict[] = [];
    for (const question of loadQuestions()) {
      const session = await demo.session(question.locale);
      const answer = await demo.ask(session.token, question.q);
      const status = await demo.status(session.conversationId);
      verdicts.push(score(question, { text: answer.text, citations: answer.citations.length, status }));
    }
    const report = table(verdicts);
    console.log(report);
    const passed = verdicts.filter((verdict) => verdict.problems.length === 0).length;
    assert.ok(passed / verdicts.length >= 0.9, report);
    const form = verdicts.flatMap((verdict) => formProblems(verdict.observed.text));
    assert.deepEqual(form, [], 'no duplicate quote and no raw markup in any answer');
  });
});
