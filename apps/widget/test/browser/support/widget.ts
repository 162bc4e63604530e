import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page, Response } from 'playwright-core';
import { z } from 'zod';
import { parseSseFrames, type SseFrame } from '../../../../server/test/support/sse.js';
import { WAIT_MS } from './browser.js';

// Driving the widget as a visitor would. Its UI lives in an open shadow root; Playwright's CSS
// locators pierce open shadow roots, so `[data-testid=…]` reaches inside.

/** A locator for a widget element by its data-testid. */
export function byTestId(page: Page, testid: string): Locator {
  return page.locator(`[data-service-widget] [data-testid="${testid}"]`);
}

/** The widget's root element (the one carrying lang, dir and the theme properties). */
export function widgetRoot(page: Page): Locator {
  return page.locator('[data-service-widget] .r');
}

/** The assistant's message bubbles. */
export function assistantMessages(page: Page): Locator {
  return page.locator('[data-service-widget] [data-testid="message"][data-role="assistant"]');
}

const ZInit = z.object({
  data: z.object({
    token: z.string(),
    conversation_id: z.string(),
    language: z.string().optional(),
    messages: z.array(z.object({ id: z.string(), role: z.string(), content: z.string() })),
  }),
});

/** What the widget's init answered. */
export type InitData = z.infer<typeof ZInit>['data'];

const isPath = (response: Response, path: string) => new URL(response.url()).pathname === path;

/** Waits for the next init answer; asserts it is a 200 and returns its data. */
export async function nextInit(page: Page, navigate: () => Promise<unknown>): Promise<InitData> {
  const init = page.waitForResponse(
    (response) => isPath(response, '/v1/widget/init') && response.request().method() === 'POST',
    { timeout: WAIT_MS },
  );
  await navigate();
  const response = await init;
  assert.equal(response.status(), 200, `init answered ${response.status()}`);
  return ZInit.parse(await response.json()).data;
}

/** Opens `url`, waits for init (200) and the launcher; returns the init data. */
export async function loadWidget(page: Page, url: string): Promise<InitData> {
  const data = await nextInit(page, () => page.goto(url));
  await byTestId(page, 'launcher').waitFor({ state: 'visible' });
  return data;
}

/** Clicks the launcher and waits for the panel. */
export async function openPanel(page: Page): Promise<void> {
  await byTestId(page, 'launcher').click();
  await byTestId(page, 'panel').waitFor({ state: 'visible' });
}

/** Types a question, sends it, and waits until the answer stream ended and the log is idle. */
export async function ask(page: Page, question: string): Promise<Response> {
  const stream = page.waitForResponse((response) => isPath(response, '/v1/widget/messages/stream'), {
    timeout: WAIT_MS,
  });
  await byTestId(page, 'input').fill(question);
  await byTestId(page, 'send').click();
  const response = await stream;
  if (response.ok()) await response.finished();
  await page.locator('[data-service-widget] [data-testid="messages"]:not([aria-busy])').waitFor();
  return response;
}

/** One frame of the answer stream. */
export type StreamFrame = SseFrame;

/** Parses an SSE body (comments dropped), with the parser the server's tests and the bench share. */
export const parseFrames = parseSseFrames;

const ZDone = z.object({
  text: z.string(),
  citations: z.array(z.object({ id: z.number(), url: z.string().nullable(), title: z.string() })),
});

/** The `done` frame of an answer stream. */
export async function doneFrame(response: Response): Promise<z.infer<typeof ZDone>> {
  const done = parseFrames(await response.text()).find((frame) => frame.event === 'done');
  assert.ok(done, 'the stream ended with a done frame');
  return ZDone.parse(done.data);
}

const LOCALES = fileURLToPath(new URL('../../../src/locales/', import.meta.url));
const ZStrings = z.record(z.string(), z.string());

/** A locale's UI strings as shipped (the file name's case does not matter: pt-BR, pt-br). */
export function uiStrings(tag: string): Record<string, string> {
  const name = readdirSync(LOCALES).find((file) => file.toLowerCase() === `${tag.toLowerCase()}.json`);
  assert.ok(name, `the widget ships a ${tag} locale`);
  return ZStrings.parse(JSON.parse(readFileSync(join(LOCALES, name), 'utf8')));
}

/** One UI string of a locale. */
export function uiString(tag: string, key: string): string {
  const text = uiStrings(tag)[key];
  assert.ok(text, `${tag}.json has "${key}"`);
  return text;
}

/** Converts a #rgb / #rrggbb colour to the `rgb(r, g, b)` form getComputedStyle reports. */
export function hexToRgb(hex: string): string {
  const full = hex.length === 4 ? hex.replace(/[0-9a-f]/gi, '$&$&') : hex;
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(full.slice(i, i + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
}

/**
 * Asserts the numbered citations of an answer: at least one, each `[N]` naming `title`; a
 * citation with a web address is an http(s) link, one without is plain text (never a script URL).
 */
export async function assertCitations(citations: Locator, title: string): Promise<void> {
  const count = await citations.count();
  assert.ok(count >= 1, 'the answer shows a numbered citation');
  for (let i = 0; i < count; i++) {
    const citation = citations.nth(i);
    assert.match((await citation.innerText()).trim(), /^\[\d+\]$/);
    assert.equal(await citation.getAttribute('title'), title, 'the citation names its source');
    const href = await citation.getAttribute('href');
    if (href !== null) assert.match(href, /^https?:/, 'a citation link is an http(s) URL');
  }
}
