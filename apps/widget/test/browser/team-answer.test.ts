import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { z } from 'zod';
import { injectJson } from '../../../server/test/support/test-app.js';
import { addText } from '../../../server/test/support/widget.js';
import { withPage } from './support/browser.js';
import { useHarness } from './support/harness.js';
import { embedPage, type HostSite } from './support/host.js';
import { hostAgent, type Service } from './support/service.js';
import { ask, assistantMessages, loadWidget, openPanel, parseFrames } from './support/widget.js';

// An operator's saved correction answers a close question verbatim, and the widget says the
// answer comes from the team (offline: no model configured).

const TEAM_ANSWER = 'Our shop in Lyon is open from nine to six, Monday to Saturday.';
/** Where the screenshots go (looked at by hand; not asserted). */
const SHOTS = process.env.WIDGET_SCREENSHOT_DIR ?? join(tmpdir(), 'widget-screenshots');

describe('widget in Chromium: answers from the team', () => {
  let browser: Browser;
  let service: Service;
  let host: HostSite;

  useHarness((started) => {
    ({ browser, service, host } = started);
  });

  for (const [label, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['390 px', { width: 390, height: 844 }],
  ] as const) {
    test(`a correction's answer is shown verbatim and marked as from the team (${label})`, async () => {
      const { tenant, agentId } = await hostAgent(service, host.origin);
      await addText(service.t, tenant, agentId, 'Shop', 'We sell hiking boots and tents.');
      const saved = await injectJson(
        service.t.app,
        'POST',
        `/api/v1/admin/agents/${agentId}/corrections`,
        { question: 'When is the shop open?', answer: TEAM_ANSWER },
        tenant.auth,
      );
      assert.equal(saved.statusCode, 201, saved.body);
      const url = host.serve(`/team-${viewport.width}`, {
        html: embedPage({ service: service.base, agentId }),
      });
      await withPage(browser, { viewport }, async ({ page }) => {
        await loadWidget(page, url);
        await openPanel(page);
        const response = await ask(page, 'when is the shop open');
        const done = parseFrames(await response.text()).find((frame) => frame.event === 'done');
        const data = z.object({ text: z.string(), from_team: z.boolean().optional() }).parse(done?.data);
        assert.deepEqual(data, { text: TEAM_ANSWER, from_team: true });
        const bubble = assistantMessages(page).last();
        await bubble.getByText(TEAM_ANSWER).waitFor();
        assert.match((await bubble.textContent()) ?? '', /Answer from our team/);
        mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({ path: join(SHOTS, `team-answer-${viewport.width}.png`) });
      });
    });
  }
});
