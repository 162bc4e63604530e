import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type TSource, UPLOAD_MAX_BYTES, UPLOAD_MAX_FILES, ZSearchResult, ZSource } from '@service/contract';
import type { LightMyRequestResponse } from 'fastify';
import { strToU8, zipSync } from 'fflate';
import { sql } from 'kysely';
import { z } from 'zod';
import { auditRows, expectData, expectError, expectPage, expectValidation } from './support/http.js';
import { createAgent, runIndexJob } from './support/site-sync.js';
import { documentsOfSource, jobsFor, sha256, sourceRow } from './support/sources.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { type FilePart, fixture, multipartBody, pdfWithoutText } from './support/upload-files.js';

const ZSources = z.array(ZSource);

describe('admin API: uploads', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;
  let agentId: string;
  let otherAgentId: string;

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme Uploads');
    other = await seedTenant(t, 'Other Uploads');
    agentId = await createAgent(t, acme, { name: 'Upload bot' });
    otherAgentId = await createAgent(t, other, { name: 'Other bot' });
  });
  after(() => t.close());

  const upload = (
    files: FilePart[],
    options: { agent?: string; tenant?: Tenant; fields?: Array<{ name: string; value: string }> } = {},
  ): Promise<LightMyRequestResponse> => {
    const body = multipartBody(files, options.fields);
    return t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/agents/${options.agent ?? agentId}/uploads`,
      headers: { ...body.headers, ...(options.tenant ?? acme).auth },
      payload: body.payload,
    });
  };

  /** Row counts of everything an upload could write. */
  const counts = async () => {
    const count = async (table: string) => {
      const result = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(
        t.database.db,
      );
      return Number(result.rows[0]?.n ?? 0);
    };
    return {
      sources: await count('sources'),
      documents: await count('documents'),
      chunks: await count('chunks'),
      audit_logs: await count('audit_logs'),
      jobs: await count('pgboss.job'),
    };
  };

  /** Asserts `res` is a 422 listing one `errors.file` entry per refused name (in order), with nothing stored. */
  const expectRefused = (res: LightMyRequestResponse, names: string[], reasons: RegExp[] = []) => {
    const body = expectValidation(res, ['file']);
    const messages = body.errors.file ?? [];
    assert.equal(messages.length, names.length, JSON.stringify(messages));
    names.forEach((name, index) => {
      assert.ok(messages[index]?.startsWith(`${name}: `), `${messages[index]} names ${name}`);
      const reason = reasons[index];
      if (reason) assert.match(messages[index] ?? '', reason);
    });
    return body;
  };

  const search = async (agent: string, query: string) =>
    expectData(
      await injectJson(
        t.app,
        'POST',
        `/api/v1/admin/agents/${agent}/search`,
        { query, limit: 50 },
        acme.auth,
      ),
      200,
      ZSearchResult,
    );

  // Each file, its type, a phrase to search, the fact its text holds, and how much of it is read.
  const policy = { paragraphs_read: 9 };
  const blocks = { paragraphs_read: 6 };
  const sheet = { sheets_read: 1, rows_read: 5 };
  const FIXTURE_FACTS: Array<[string, string, string, RegExp, Record<string, number>]> = [
    ['returns-policy.pdf', 'pdf', 'within 30 days', /30 days/, { pages_read: 2 }],
    ['returns-policy.docx', 'docx', 'within 30 days', /30 days/, policy],
    ['returns-policy.doc', 'doc', 'within 30 days', /30 days/, policy],
    ['returns-policy.odt', 'odt', 'within 30 days', /30 days/, policy],
    ['returns-policy.md', 'md', 'within 30 days', /30 days/, blocks],
    ['returns-policy.txt', 'txt', 'within 30 days', /30 days/, blocks],
    ['price-list.xlsx', 'xlsx', 'Merino hoodie', /Merino hoodie/, sheet],
    ['price-list.xls', 'xls', 'Merino hoodie', /Merino hoodie/, sheet],
    ['price-list.ods', 'ods', 'Merino hoodie', /Merino hoodie/, sheet],
    ['price-list.csv', 'csv', 'Merino hoodie', /Merino hoodie/, { rows_read: 5 }],
  ];

  for (const [file, type, phrase, fact, extent] of FIXTURE_FACTS) {
    test(`${file}: stored as an upload source with its text, indexed and searchable`, async () => {
      const agent = await createAgent(t, acme, { name: `Agent for ${file}` });
      const bytes = await fixture(file);
      const [source, ...rest] = expectData(await upload([{ name: file, bytes }], { agent }), 201, ZSources);
      assert.ok(source);
      assert.equal(rest.length, 0);
      assert.equal(source.type, 'upload');
      assert.equal(source.name, file);
      assert.equal(source.agent_id, agent);
      assert.equal(source.status, 'indexing');
      assert.equal(source.document_count, 1);
      const metadata = {
        file_name: file,
        file_type: type,
        size_bytes: bytes.byteLength,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        ...extent,
      };
      // The answer shows how much was read; the source and its document keep it.
      assert.deepEqual(source.config, metadata);
      assert.deepEqual((await sourceRow(t, source.id)).config, metadata);

      const [doc, ...more] = await documentsOfSource(t, source.id);
      assert.ok(doc);
      assert.equal(more.length, 0);
      assert.equal(doc.kind, 'upload');
      assert.equal(doc.url, null);
      assert.match(doc.content_text, fact);
      assert.equal(doc.content_hash, sha256(doc.content_text));
      assert.deepEqual(doc.metadata, metadata);
      // A Markdown file names its title; the others keep their own (PDF metadata) or the file name.
      if (type === 'md') assert.equal(doc.title, 'Returns policy');
      else assert.ok(doc.title.length > 0 && doc.title.length <= 200);
      assert.equal(doc.index_status, 'pending');
      assert.equal(await jobsFor(t, 'index-document', doc.id), 1);

      await runIndexJob(t, doc.id);
      assert.equal((await sourceRow(t, source.id)).status, 'indexed');
      const result = await search(agent, phrase);
      assert.equal(result.hits[0]?.source_id, source.id, JSON.stringify(result.hits));
      assert.match(result.hits[0]?.content ?? '', fact);
    });
  }

  test('several files in one request: one source each, in upload order, audited', async () => {
    const agent = await createAgent(t, acme, { name: 'Several' });
    const names = ['returns-policy.pdf', 'price-list.xlsx', 'returns-policy.md'];
    const files = await Promise.all(names.map(async (name) => ({ name, bytes: await fixture(name) })));
    const sources = expectData(await upload(files, { agent }), 201, ZSources);
    assert.deepEqual(
      sources.map((source) => source.name),
      names,
    );
    assert.equal(new Set(sources.map((source) => source.id)).size, 3);
    const audit = (await auditRows(t, acme.workspace.id)).filter((row) => row.action === 'source.uploaded');
    const last = audit.slice(-3);
    assert.deepEqual(
      last.map((row) => row.target_id),
      sources.map((source) => source.id),
    );
    assert.deepEqual(last[1]?.metadata, {
      agent_id: agent,
      file_name: 'price-list.xlsx',
      file_type: 'xlsx',
      size_bytes: files[1]?.bytes.byteLength,
    });
    for (const source of sources) {
      const [doc] = await documentsOfSource(t, source.id);
      assert.ok(doc);
      await runIndexJob(t, doc.id);
    }
    const listed = expectPage(
      await t.app.inject({ method: 'GET', url: `/api/v1/admin/agents/${agent}/sources`, headers: acme.auth }),
      200,
      ZSource,
    );
    assert.deepEqual(listed.map((source) => source.status).sort(), ['indexed', 'indexed', 'indexed']);
    const hits = (await search(agent, 'Merino hoodie')).hits;
    assert.equal(hits[0]?.source_id, sources[1]?.id);
  });

  const html = '<!DOCTYPE html><html><body><script>alert(1)</script><p>Hi</p></body></html>';
  const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
  const zip = () => zipSync({ 'a.txt': strToU8('hello zip') });
  const exe = () => {
    // A DOS stub pointing at a PE header: what file-type calls an exe.
    const bytes = new Uint8Array(512);
    bytes.set(strToU8('MZ'), 0);
    new DataView(bytes.buffer).setUint32(0x3c, 0x80, true);
    bytes.set(strToU8('PE\0\0'), 0x80);
    return bytes;
  };

  const hostile: Array<[string, () => Promise<FilePart[]> | FilePart[], string[], RegExp[]]> = [
    ['an HTML page renamed .pdf', () => [{ name: 'invoice.pdf', bytes: html }], ['invoice.pdf'], [/HTML/i]],
    ['a zip renamed .docx', () => [{ name: 'report.docx', bytes: zip() }], ['report.docx'], [/zip/i]],
    ['a Windows executable', () => [{ name: 'setup.exe', bytes: exe() }], ['setup.exe'], [/executable|exe/i]],
    ['an exe renamed .pdf', () => [{ name: 'setup.pdf', bytes: exe() }], ['setup.pdf'], [/executable|exe/i]],
    ['an SVG', () => [{ name: 'logo.svg', bytes: svg }], ['logo.svg'], [/SVG/i]],
    ['an SVG renamed .txt', () => [{ name: 'logo.txt', bytes: svg }], ['logo.txt'], [/SVG/i]],
    ['an .html file', () => [{ name: 'page.html', bytes: html }], ['page.html'], [/HTML/i]],
    ['a plain .zip', () => [{ name: 'archive.zip', bytes: zip() }], ['archive.zip'], [/zip/i]],
    ['an empty file', () => [{ name: 'empty.txt', bytes: '' }], ['empty.txt'], [/empty/]],
    [
      'a damaged PDF',
      () => [{ name: 'broken.pdf', bytes: '%PDF-1.7\n1 0 obj << /Type /Catalog' }],
      ['broken.pdf'],
      [/could not be read|damaged/],
    ],
    [
      'a PDF without any text',
      () => [{ name: 'scan.pdf', bytes: pdfWithoutText() }],
      ['scan.pdf'],
      [/no text could be extracted/],
    ],
    [
      'one good PDF and one bad file',
      async () => [
        { name: 'returns-policy.pdf', bytes: await fixture('returns-policy.pdf') },
        { name: 'evil.docx', bytes: html },
      ],
      ['evil.docx'],
      [/HTML/i],
    ],
    [
      'two bad files among good ones',
      async () => [
        { name: 'logo.svg', bytes: svg },
        { name: 'price-list.csv', bytes: await fixture('price-list.csv') },
        { name: 'setup.exe', bytes: exe() },
      ],
      ['logo.svg', 'setup.exe'],
      [/SVG/i, /executable|exe/i],
    ],
  ];

  for (const [label, files, names, reasons] of hostile) {
    test(`${label} → 422 naming each refused file, nothing stored`, async () => {
      const before = await counts();
      expectRefused(await upload(await files()), names, reasons);
      assert.deepEqual(await counts(), before);
    });
  }

  test('a file of exactly 50 MB is accepted; 50 MB + 1 byte is a 413 naming it, nothing stored', async () => {
    const agent = await createAgent(t, acme, { name: 'Big' });
    const line = 'The quick brown fox jumps over the lazy dog.\n';
    // One line of words, then blank lines to 50 MB: 50 MB of words would be over the
    // 2,000,000-character text cap (hostile-uploads.test.ts), which is not the limit tested here.
    const exact = Buffer.alloc(UPLOAD_MAX_BYTES, '\n');
    exact.write(line, 0);
    const [source] = expectData(await upload([{ name: 'big.txt', bytes: exact }], { agent }), 201, ZSources);
    assert.ok(source);
    const row = await t.database.db
      .selectFrom('documents')
      .select([sql<number>`octet_length(content_text)`.as('length'), 'metadata'])
      .where('source_id', '=', source.id)
      .executeTakeFirstOrThrow();
    assert.equal((row.metadata as { size_bytes: number }).size_bytes, UPLOAD_MAX_BYTES);
    assert.equal(Number(row.length), exact.toString('utf8').trimEnd().length);

    const before = await counts();
    const over = Buffer.alloc(UPLOAD_MAX_BYTES + 1, line);
    const body = expectError(
      await upload([{ name: 'bigger.txt', bytes: over }], { agent }),
      413,
      'payload_too_large',
    );
    assert.match(body.message, /^bigger\.txt: .*50 MB/);
    assert.deepEqual(body.errors.file, [body.message]);
    assert.deepEqual(await counts(), before);
  });

  test(`${UPLOAD_MAX_FILES} files in one request are accepted; ${UPLOAD_MAX_FILES + 1} are a 413, nothing stored`, async () => {
    const agent = await createAgent(t, acme, { name: 'Many' });
    const files = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ name: `note-${i + 1}.txt`, bytes: `Note number ${i + 1}.` }));
    const sources = expectData(await upload(files(UPLOAD_MAX_FILES), { agent }), 201, ZSources);
    assert.deepEqual(
      sources.map((source: TSource) => source.name),
      files(UPLOAD_MAX_FILES).map((file) => file.name),
    );
    const before = await counts();
    const body = expectError(await upload(files(UPLOAD_MAX_FILES + 1), { agent }), 413, 'payload_too_large');
    assert.match(body.errors.file?.[0] ?? '', /At most 10 files/);
    assert.deepEqual(await counts(), before);
  });

  test('a multipart body without a file part → 422 errors.file, nothing stored', async () => {
    const before = await counts();
    const body = expectValidation(await upload([]), ['file']);
    assert.match(body.errors.file?.[0] ?? '', /No file was sent/);
    assert.deepEqual(await counts(), before);
  });

  test('other fields are refused: a text field, a file in another field, a value in the file field', async () => {
    const before = await counts();
    const good = { name: 'returns-policy.txt', bytes: await fixture('returns-policy.txt') };
    expectValidation(await upload([good], { fields: [{ name: 'name', value: 'x' }] }), ['name']);
    expectValidation(await upload([{ ...good, field: 'document' }]), ['document']);
    const valueInFile = expectValidation(await upload([], { fields: [{ name: 'file', value: 'x' }] }), [
      'file',
    ]);
    assert.match(valueInFile.errors.file?.[0] ?? '', /must be a file/);
    assert.deepEqual(await counts(), before);
  });

  test('a JSON body → 415 in the envelope; no body at all → 415', async () => {
    const before = await counts();
    const json = await injectJson(
      t.app,
      'POST',
      `/api/v1/admin/agents/${agentId}/uploads`,
      { file: 'x' },
      acme.auth,
    );
    assert.match(expectError(json, 415, 'unsupported_media_type').message, /multipart\/form-data/);
    const empty = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/agents/${agentId}/uploads`,
      headers: acme.auth,
    });
    expectError(empty, 415, 'unsupported_media_type');
    assert.deepEqual(await counts(), before);
  });

  test('only the uploads route parses multipart: the sources route answers 415', async () => {
    const body = multipartBody([{ name: 'a.txt', bytes: 'hello' }]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/agents/${agentId}/sources`,
      headers: { ...body.headers, ...acme.auth },
      payload: body.payload,
    });
    expectError(res, 415, 'unsupported_media_type');
  });

  test("another workspace's agent, or an unknown one, is a 404 and nothing is stored", async () => {
    const before = await counts();
    const good = [{ name: 'returns-policy.txt', bytes: await fixture('returns-policy.txt') }];
    expectError(await upload(good, { agent: otherAgentId }), 404, 'not_found');
    expectError(await upload(good, { agent: '01UNKNOWNAGENT' }), 404, 'not_found');
    // The other workspace's own token can upload to it.
    assert.deepEqual(await counts(), before);
    expectData(await upload(good, { agent: otherAgentId, tenant: other }), 201, ZSources);
  });

  test('no token → 401 before the body is read', async () => {
    const body = multipartBody([{ name: 'a.txt', bytes: 'hello' }]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/agents/${agentId}/uploads`,
      headers: body.headers,
      payload: body.payload,
    });
    expectError(res, 401, 'unauthenticated');
  });

  test('a file name loses its path parts and control characters', async () => {
    const agent = await createAgent(t, acme, { name: 'Names' });
    const bytes = await fixture('returns-policy.txt');
    const cases: Array<[string, string]> = [
      ['../../etc/re\u0007turns\u202e.txt', 'returns.txt'],
      ['C:\\Users\\ann\\Desktop\\policy.txt', 'policy.txt'],
      ['..', 'upload'],
      [`${'a'.repeat(300)}.txt`, `${'a'.repeat(196)}.txt`],
    ];
    const sources = expectData(
      await upload(
        cases.map(([name]) => ({ name, bytes })),
        { agent },
      ),
      201,
      ZSources,
    );
    assert.deepEqual(
      sources.map((source) => source.name),
      cases.map(([, expected]) => expected),
    );
    const [first] = sources;
    assert.ok(first);
    assert.equal((await sourceRow(t, first.id)).config.file_name, 'returns.txt');
    // The refusal names the sanitised file too.
    expectRefused(await upload([{ name: '../x/\u0001evil\u0000.pdf', bytes: html }], { agent }), [
      'evil.pdf',
    ]);
  });
});
