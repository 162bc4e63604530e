/// <reference types="node" />
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSseParser, readSse, type TSseFrame } from './sse.js';

function parseAll(chunks: string[]): TSseFrame[] {
  const frames: TSseFrame[] = [];
  const push = createSseParser((frame) => frames.push(frame));
  for (const chunk of chunks) push(chunk);
  return frames;
}

function streamOf(chunks: string[], holdOpen = false): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      if (!holdOpen) controller.close();
    },
  });
}

describe('createSseParser', () => {
  const wire =
    'event: start\ndata: {"message_id":"m1"}\n\nevent: token\ndata: {"t":"Hel"}\n\nevent: done\ndata: {"text":"Hello"}\n\n';

  it('parses whole frames', () => {
    assert.deepEqual(parseAll([wire]), [
      { event: 'start', data: '{"message_id":"m1"}' },
      { event: 'token', data: '{"t":"Hel"}' },
      { event: 'done', data: '{"text":"Hello"}' },
    ]);
  });

  it('gives the same frames however the bytes are split', () => {
    const expected = parseAll([wire]);
    for (let size = 1; size < 12; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < wire.length; i += size) chunks.push(wire.slice(i, i + size));
      assert.deepEqual(parseAll(chunks), expected, `chunk size ${size}`);
    }
  });

  it('ignores comments and keep-alives', () => {
    const frames = parseAll([': keep-alive\n\n', ':\n', 'event: token\n: inside\ndata: {"t":"a"}\n\n']);
    assert.deepEqual(frames, [{ event: 'token', data: '{"t":"a"}' }]);
  });

  it('accepts CRLF and CR line endings, even with CRLF split across chunks', () => {
    assert.deepEqual(parseAll(['event: token\r\ndata: {"t":"x"}\r\n\r\n']), [
      { event: 'token', data: '{"t":"x"}' },
    ]);
    assert.deepEqual(parseAll(['event: token\r', '\ndata: 1\r', '\n\r', '\n']), [
      { event: 'token', data: '1' },
    ]);
    assert.deepEqual(parseAll(['event: a\rdata: 2\r\r']), [{ event: 'a', data: '2' }]);
  });

  it('joins multi-line data and defaults the event name', () => {
    assert.deepEqual(parseAll(['data: a\ndata: b\n\n']), [{ event: 'message', data: 'a\nb' }]);
  });

  it('does not emit a frame before its blank line', () => {
    assert.deepEqual(parseAll(['event: token\ndata: {"t":"a"}\n']), []);
  });
});

describe('readSse', () => {
  it('reads a stream to its end, flushing a last frame without a blank line', async () => {
    const frames: TSseFrame[] = [];
    const end = await readSse(
      streamOf(['event: token\ndata: {"t":"é', '"}\n\nevent: done\ndata: {}']),
      (f) => frames.push(f),
      1000,
    );
    assert.equal(end, 'end');
    assert.deepEqual(frames, [
      { event: 'token', data: '{"t":"é"}' },
      { event: 'done', data: '{}' },
    ]);
  });

  it('decodes multi-byte characters split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: {"t":"€"}\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 13));
        controller.enqueue(bytes.slice(13));
        controller.close();
      },
    });
    const frames: TSseFrame[] = [];
    await readSse(body, (f) => frames.push(f), 1000);
    assert.deepEqual(frames, [{ event: 'message', data: '{"t":"€"}' }]);
  });

  it('gives up on a stream that goes silent', async () => {
    let aborted = false;
    const frames: TSseFrame[] = [];
    const end = await readSse(
      streamOf(['event: token\ndata: {"t":"a"}\n\n'], true),
      (f) => frames.push(f),
      50,
      () => {
        aborted = true;
      },
    );
    assert.equal(end, 'stalled');
    assert.equal(aborted, true);
    assert.equal(frames.length, 1);
  });
});
