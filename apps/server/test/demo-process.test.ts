import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ServiceProcess } from './support/processes.js';

// A newcomer's first start: an empty embedded store, no key, no settings beyond the port.
describe('first start on an empty store', () => {
  let dataDir: string;
  let service: ServiceProcess;
  let url: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-demo-'));
    service = new ServiceProcess({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BCRYPT_COST: '4' });
    url = await service.waitForUrl();
  });
  after(async () => {
    service.kill();
    await service.exited;
    await rm(dataDir, { recursive: true, force: true });
  });

  test('seeds the demo, logs the /demo URL, and the page embeds the agent with one script tag', async () => {
    const line = await service.waitForLine((entry) => /\/demo to chat/.test(String(entry.msg)));
    assert.match(String(line.msg), new RegExp(`${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/demo`));
    const page = await fetch(`${url}/demo`);
    assert.equal(page.status, 200);
    const html = await page.text();
    const agentId = /data-agent-id="([0-9A-Z]{26})"/.exec(html)?.[1];
    assert.ok(agentId, html);
    const init = await fetch(`${url}/v1/widget/init`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: new URL(url).origin },
      body: JSON.stringify({ agent_id: agentId, anon_id: 'anon_first_start_1' }),
    });
    assert.equal(init.status, 200, await init.clone().text());
  });
});
