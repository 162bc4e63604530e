/**
 * The one parser of the service's answer stream, shared by the server's tests, the widget's
 * browser tests and the bench (they import it by relative path). It holds the stream to its wire
 * form: each frame is an optional `id: <id>` line, one `event: <name>` line and one `data: <one-line JSON>` line, frames end
 * with a blank line, and lines starting with `:` (keep-alives) are comments.
 */

/** One frame of the answer stream; `id` when the frame had an `id:` line (the admin event stream). */
export type SseFrame = { event: string; data: unknown; id?: string };

/** Parses an SSE body into frames, comments dropped; throws on a frame that breaks the wire form. */
export function parseSseFrames(body: string): SseFrame[] {
  const frames: SseFrame[] = [];
  for (const block of body.split('\n\n')) {
    const lines = block.split('\n').filter((line) => line !== '' && !line.startsWith(':'));
    if (lines.length === 0) continue;
    const id = lines[0]?.startsWith('id: ') ? lines.shift()?.slice('id: '.length) : undefined;
    const [eventLine, dataLine, ...rest] = lines;
    if (!eventLine?.startsWith('event: ') || !dataLine?.startsWith('data: ') || rest.length > 0) {
      throw new Error(`a frame is one event line and one data line: ${JSON.stringify(block)}`);
    }
    frames.push({
      ...(id === undefined ? {} : { id }),
      event: eventLine.slice('event: '.length),
      data: JSON.parse(dataLine.slice('data: '.length)),
    });
  }
  return frames;
}
