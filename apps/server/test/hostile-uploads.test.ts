import assert from 'node:assert/strict';
import { after, before, describe, type TestContext, test } from 'node:test';
import { ZSource } from '@service/contract';
import { sql } from 'kysely';
import { z } from 'zod';
import { closeExtractionPool, configureExtractionPool } from '../src/extraction/shared-extraction-pool.js';
import { HEALTH_BOUND_MS, type HealthReport, probeHealth } from './support/health-probe.js';
import {
  docxWithHugeDocument,
  docxWithLyingDocument,
  pdfWithHugeContentStream,
  textOfLength,
} from './support/hostile-files.js';
import { createAgent } from './support/site-sync.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { type FilePart, fixture, multipartBody } from './support/upload-files.js';

const ZEnvelope = z.object({
  message: z.string(),
  code: z.string(),
  errors: z.record(z.string(), z.array(z.string())),
});

/** The extraction limits of this file: the smallest documented heap, so the caps are met sooner. */
const LIMITS = { EXTRACT_HEAP_MB: '256', EXTRACT_WORKERS: '1' };

/**
 * Why a file too big to read failed: the thread's memory, its time (on a loaded machine the
 * limit met first can be the 60 s), or the text cap when the reader got that far.
 */
const OVER_A_LIMIT =
  /(could not be read within the limits: it (needs more than 256 MB of memory|takes longer than 60 s) to read|is too large: its text is longer than 2,000,000 characters)/;

describe('hostile uploads: each fails alone with a clear reason, and /healthz keeps answering', () => {
  let t: TestApp;
  let acme: Tenant;
  let agentId: string;
  let origin: string;

  before(async () => {
    t = await createTestApp({ env: LIMITS });
    // As the service does at start: the process-wide pool with the configured (default) limits.
    await configureExtractionPool(t.config.extraction);
    acme = await seedTenant(t, 'Hostile uploads');
    agentId = await createAgent(t, acme, { name: 'Hostile bot' });
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await closeExtractionPool();
    await t.close();
  });

  /** Uploads over real HTTP while another thread polls /healthz every 100 ms. */
  const uploadWhileProbing = async (files: FilePart[]) => {
    const probe = probeHealth(`${origin}/healthz`);
    await probe.ready;
    const body = multipartBody(files);
    let response: Response;
    let health: HealthReport;
    try {
      response = await fetch(`${origin}/api/v1/admin/agents/${agentId}/uploads`, {
        method: 'POST',
        headers: { ...body.headers, ...acme.auth },
        body: body.payload,
      });
    } finally {
      health = await probe.stop();
    }
    return { status: response.status, body: await response.json(), health };
  };

  /** Asserts a 422 refusing the one file for `reason`, with nothing stored. */
  const expectRefused = async (result: { status: number; body: unknown }, name: string, reason: RegExp) => {
    assert.equal(result.status, 422, JSON.stringify(result.body));
    const envelope = ZEnvelope.parse(result.body);
    assert.equal(envelope.code, 'validation_failed');
    const messages = envelope.errors.file ?? [];
    assert.equal(messages.length, 1, JSON.stringify(messages));
    assert.ok(messages[0]?.startsWith(`${name}: `), messages[0]);
    assert.match(messages[0] ?? '', reason);
    const sources = await sql<{ n: string }>`select count(*) as n from sources`.execute(t.database.db);
    assert.equal(Number(sources.rows[0]?.n), 0);
  };

  /** Asserts /healthz answered throughout, each time within the bound; reports the slowest answer. */
  const expectResponsive = (context: TestContext, health: HealthReport) => {
    context.diagnostic(`/healthz: ${health.samples} answers, slowest ${health.maxMs.toFixed(0)} ms`);
    assert.ok(health.samples >= 1, JSON.stringify(health));
    assert.equal(health.failures, 0, JSON.stringify(health));
    assert.ok(health.maxMs < HEALTH_BOUND_MS, `slowest /healthz: ${health.maxMs.toFixed(0)} ms`);
  };

  test('a 0.7 MB .docx whose document.xml unpacks to 199 MiB: over the memory limit', async (context) => {
    const { bytes, documentBytes } = docxWithHugeDocument();
    assert.ok(bytes.length < 1024 * 1024, `${bytes.length} bytes`);
    assert.ok(documentBytes > 198 * 1024 * 1024 && documentBytes < 199 * 1024 * 1024);
    const result = await uploadWhileProbing([{ name: 'huge.docx', bytes }]);
    await expectRefused(result, 'huge.docx', /^huge\.docx: the Word \(\.docx\) file /);
    await expectRefused(result, 'huge.docx', OVER_A_LIMIT);
    expectResponsive(context, result.health);
  });

  test('a .docx declaring 1,000 bytes for document.xml that inflates to 10 GiB: stopped at 1,000', async (context) => {
    const { bytes, inflatedBytes } = docxWithLyingDocument();
    assert.ok(inflatedBytes > 10 * 1024 ** 3);
    const result = await uploadWhileProbing([{ name: 'lying.docx', bytes }]);
    await expectRefused(result, 'lying.docx', /word\/document\.xml expands past the 1000 bytes it declares/);
    expectResponsive(context, result.health);
  });

  test('a PDF whose content stream inflates to 1 GiB: over the memory limit or the text cap', async (context) => {
    const { bytes, inflatedBytes } = pdfWithHugeContentStream();
    assert.ok(inflatedBytes > 1000 * 1024 * 1024);
    const result = await uploadWhileProbing([{ name: 'huge.pdf', bytes }]);
    await expectRefused(result, 'huge.pdf', /^huge\.pdf: the PDF file /);
    await expectRefused(result, 'huge.pdf', OVER_A_LIMIT);
    expectResponsive(context, result.health);
  });

  test('a 12 MB .txt (under the 50 MB upload cap): refused by the 2,000,000-character cap', async (context) => {
    const result = await uploadWhileProbing([{ name: 'big.txt', bytes: textOfLength(12_000_000) }]);
    await expectRefused(
      result,
      'big.txt',
      /^big\.txt: the text file is too large: its text is longer than 2,000,000 characters, the most one upload may hold$/,
    );
    expectResponsive(context, result.health);
  });

  test('text at the cap: 2,000,000 characters are accepted, 2,000,001 refused', async (context) => {
    const over = await uploadWhileProbing([{ name: 'over.md', bytes: textOfLength(2_000_001) }]);
    await expectRefused(over, 'over.md', /the Markdown file is too large: its text is longer than 2,000,000/);
    expectResponsive(context, over.health);
    const exact = await uploadWhileProbing([{ name: 'exact.md', bytes: textOfLength(2_000_000) }]);
    assert.equal(exact.status, 201, JSON.stringify(exact.body));
    expectResponsive(context, exact.health);
    const [source] = z.object({ data: z.array(ZSource) }).parse(exact.body).data;
    const document = await t.database.db
      .selectFrom('documents')
      .select(sql<number>`length(content_text)`.as('length'))
      .where('source_id', '=', source?.id ?? '')
      .executeTakeFirstOrThrow();
    assert.equal(Number(document.length), 2_000_000);
    await t.database.db.deleteFrom('sources').execute();
  });

  test('after all that, the same process reads an ordinary .docx in a fresh thread', async (context) => {
    const result = await uploadWhileProbing([
      { name: 'policy.docx', bytes: await fixture('returns-policy.docx') },
    ]);
    assert.equal(result.status, 201, JSON.stringify(result.body));
    const health = await fetch(`${origin}/healthz`);
    assert.equal(health.status, 200);
    expectResponsive(context, result.health);
  });
});
