import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError, validationError } from '../src/errors/app-error.js';
import { errorFrame } from '../src/http/event-stream.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initSession, parseSse, widgetCall } from './support/widget.js';

/**
 * The service's clock, armed to throw `error` on its call after the next `skip` ones: a request's
 * widget auth reads the clock once, then the answer reads it first when it stores the message,
 * so `skip: 1` makes the answer itself fail with `error`.
 */
let armed: { error: Error; skip: number } | null = null;
function now(): Date {
  if (armed) {
    if (armed.skip === 0) {
      const { error } = armed;
      armed = null;
      throw error;
    }
    armed.skip -= 1;
  }
  return new Date();
}

const CASES: Array<{ label: string; error: () => Error; status: number; code: string; message: string }> = [
  {
    label: '429 rate_limited',
    error: () => new AppError('rate_limited', { retryAfter: 30 }),
    status: 429,
    code: 'rate_limited',
    message: 'Too many requests.',
  },
  {
    label: '403 forbidden',
    error: () => new AppError('forbidden', { message: 'This conversation is closed to you.' }),
    status: 403,
    code: 'forbidden',
    message: 'This conversation is closed to you.',
  },
  {
    label: '422 validation_failed',
    error: () => validationError({ message: ['The message field is invalid.'] }),
    status: 422,
    code: 'validation_failed',
    message: 'The message field is invalid.',
  },
  {
    label: 'an unexpected error (500)',
    error: () => new Error('connection terminated: secret detail'),
    status: 500,
    code: 'internal_error',
    message: 'Something went wrong on our side.',
  },
];

describe('the stream and the JSON route render an error with one mapping', () => {
  let t: TestApp;
  let agentId: string;
  before(async () => {
    t = await createTestApp({ clock: { now } });
    ({ agentId } = await createWidgetAgent(t));
  });
  after(() => t.close());

  for (const item of CASES) {
    test(`${item.label}: the JSON status and code, and the stream's error frame, agree`, async () => {
      const session = await initSession(t, agentId);
      armed = { error: item.error(), skip: 1 };
      const json = await widgetCall(t, 'POST', '/v1/widget/messages', session.token, { message: 'Hello?' });
      assert.equal(armed, null, 'the answer read the clock and failed');
      assert.equal(json.statusCode, item.status);
      const body = json.json();
      assert.equal(body.code, item.code);
      assert.equal(body.message, item.message);

      armed = { error: item.error(), skip: 1 };
      const stream = await widgetCall(t, 'POST', '/v1/widget/messages/stream', session.token, {
        message: 'Hello?',
      });
      assert.equal(armed, null, 'the answer read the clock and failed');
      // The status line went out before the answer started; the frame carries the error.
      assert.equal(stream.statusCode, 200);
      const frames = parseSse(stream.body);
      assert.deepEqual(frames, [{ event: 'error', data: { code: item.code, message: item.message } }]);
      assert.doesNotMatch(stream.body, /secret detail/);

      // Neither stored the visitor's message: the failure came before it.
      const stored = await t.database.db
        .selectFrom('messages')
        .select('id')
        .where('conversation_id', '=', session.conversation_id)
        .execute();
      assert.deepEqual(stored, []);
    });
  }
});

describe('errorFrame', () => {
  test('an AppError keeps its code and message; a 401 carries no detail; anything else is internal_error', () => {
    assert.deepEqual(errorFrame(new AppError('rate_limited')), {
      event: 'error',
      data: { code: 'rate_limited', message: 'Too many requests.' },
    });
    assert.deepEqual(errorFrame(new AppError('origin_forbidden')), {
      event: 'error',
      data: { code: 'origin_forbidden', message: 'This origin is not allowed to use this agent.' },
    });
    assert.deepEqual(errorFrame(new AppError('unauthenticated', { message: 'token expired at 12:00' })), {
      event: 'error',
      data: { code: 'unauthenticated', message: 'Unauthenticated.' },
    });
    assert.deepEqual(errorFrame(new TypeError('x is undefined')), {
      event: 'error',
      data: { code: 'internal_error', message: 'Something went wrong on our side.' },
    });
  });
});
