// Server-sent events over fetch (the stream is a POST, so EventSource cannot be used).
// Framing per the HTML spec: lines end in CRLF, LF or CR; `:` lines are comments; a blank
// line ends a frame; several `data:` lines join with "\n".

/** One parsed frame: its event name (default `message`) and raw data. */
export type TSseFrame = { event: string; data: string };

/** A push parser: feed it text chunks split wherever; it calls `onFrame` per complete frame. */
export function createSseParser(onFrame: (frame: TSseFrame) => void): (chunk: string) => void {
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let pendingCr = false;
  return (chunk) => {
    let text = chunk;
    // A CR at the end of the previous chunk may be the first half of a CRLF.
    if (pendingCr && text.startsWith('\n')) text = text.slice(1);
    pendingCr = text.endsWith('\r');
    buffer += text;
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (data.length > 0) onFrame({ event: event || 'message', data: data.join('\n') });
        event = '';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
  };
}

/** How a read ended: the stream closed, went silent too long, or failed. */
export type TReadEnd = 'end' | 'stalled' | 'error';

/**
 * Reads an SSE body to its end, parsing frames as bytes arrive. When no bytes come for
 * `stallMs`, it cancels the reader (and calls `onStall` so the caller can abort the fetch).
 */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  onFrame: (frame: TSseFrame) => void,
  stallMs: number,
  onStall: () => void = () => {},
): Promise<TReadEnd> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const push = createSseParser(onFrame);
  let stalled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      try {
        onStall();
        reader.cancel().catch(() => {});
      } catch {}
    }, stallMs);
  };
  try {
    arm();
    for (;;) {
      const { done, value } = await reader.read();
      if (stalled) return 'stalled';
      if (done) break;
      arm();
      push(decoder.decode(value, { stream: true }));
    }
    push(`${decoder.decode()}\n\n`);
    return 'end';
  } catch {
    return stalled ? 'stalled' : 'error';
  } finally {
    clearTimeout(timer);
  }
}
