import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ZEvaluationRun, ZGoldenItem } from '@service/contract';
import { evaluateAgentJob } from '../../src/jobs/evaluate-agent.js';
import { expectData } from './http.js';
import { injectJson, type TestApp, workerContext } from './test-app.js';

/** The pages of the test shop: path → title and text, each about one thing. */
export const SHOP_PAGES: Record<string, { title: string; text: string }> = {
  '/returns': {
    title: 'Returns and refunds',
    text: 'Parcels may be returned within thirty days of delivery for a full refund to the original card.',
  },
  '/shipping': {
    title: 'Shipping times',
    text: 'Orders leave the warehouse within two working days; couriers deliver across the country.',
  },
  '/warranty': {
    title: 'Lantern warranty',
    text: 'Every lantern carries a five year warranty covering the battery, the switch and the glass.',
  },
};

/** A sitemap site on 127.0.0.1 whose pages can be taken away (`removed`) between fetches. */
export type ShopSite = { origin: string; removed: Set<string>; close(): Promise<void> };

/** Starts the shop: `/sitemap.xml` lists every page not removed; a removed page is 404. */
export async function startShop(): Promise<ShopSite> {
  const removed = new Set<string>();
  let origin = '';
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/sitemap.xml') {
      const urls = Object.keys(SHOP_PAGES)
        .filter((page) => !removed.has(page))
        .map((page) => `<url><loc>${origin}${page}</loc></url>`)
        .join('');
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`,
      );
    }
    const page = SHOP_PAGES[path];
    if (!page || removed.has(path)) return res.writeHead(404, { 'content-type': 'text/plain' }).end('gone');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    return res.end(
      `<!doctype html><html lang="en"><head><title>${page.title}</title></head><body><main>` +
        `<h1>${page.title}</h1><p>${page.text}</p></main></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    removed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Adds a golden item through the admin API and returns it. */
export async function addGolden(t: TestApp, auth: Record<string, string>, agentId: string, body: unknown) {
  const res = await injectJson(t.app, 'POST', `/api/v1/admin/agents/${agentId}/golden`, body, auth);
  return expectData(res, 201, ZGoldenItem);
}

/** Runs a run's evaluate-agent job as the worker would (the app's features and queue). */
export async function runEvaluation(t: TestApp, runId: string): Promise<void> {
  await evaluateAgentJob.handle({ runId }, workerContext(t));
}

/** Reads a run through the admin API. */
export async function readRun(t: TestApp, auth: Record<string, string>, agentId: string, runId: string) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/admin/agents/${agentId}/evaluations/${runId}`,
    headers: auth,
  });
  return expectData(res, 200, ZEvaluationRun);
}
