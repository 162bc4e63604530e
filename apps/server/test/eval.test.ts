import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DATA_COMMANDS, readEvalOptions } from '../src/cli/commands.js';
import { formatResult } from '../src/cli/format.js';
import { createHashedEmbedder } from '../src/embeddings/index.js';
import { AppError } from '../src/errors/app-error.js';
import { embedChunksJob } from '../src/jobs/embed-chunks.js';
import { createLogger } from '../src/logger.js';
import { type EvalReport, parseGoldenSet, type TGoldenQuestion } from '../src/retrieval/evaluate.js';
import { createAgent, documentsOf, runIndexJob } from './support/site-sync.js';
import { createTestApp, injectJson, seedTenant, type TestApp } from './support/test-app.js';

const KNOWLEDGE = fileURLToPath(new URL('../../../examples/knowledge/', import.meta.url));
const GOLDEN = join(KNOWLEDGE, 'golden.jsonl');

/** Narrows a data command's result to the report (the command's return type is a union). */
function asReport(value: unknown): EvalReport {
  assert.ok(typeof value === 'object' && value !== null && 'recall_at_5' in value);
  return value as EvalReport;
}

/** Runs `fn` and returns the AppError it throws. */
async function appErrorOf(fn: () => Promise<unknown>): Promise<AppError> {
  try {
    await fn();
  } catch (error) {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected an error');
}

describe('cli eval: retrieval metrics on the shipped golden set', () => {
  let t: TestApp;
  let agentId: string;
  let questions: TGoldenQuestion[];
  const log = createLogger('silent');

  before(async () => {
    t = await createTestApp();
    const tenant = await seedTenant(t, 'Trail & Tide');
    agentId = await createAgent(t, tenant, { name: 'Trail & Tide helper', language_default: 'en' });
    const files = (await readdir(KNOWLEDGE)).filter((file) => file.endsWith('.md') && file !== 'README.md');
    for (const file of files) {
      const text = await readFile(join(KNOWLEDGE, file), 'utf8');
      const res = await injectJson(
        t.app,
        'POST',
        `/api/v1/admin/agents/${agentId}/sources`,
        { type: 'text', name: file.replace(/\.md$/, ''), text },
        tenant.auth,
      );
      assert.equal(res.statusCode, 201, res.body);
    }
    const documents = await documentsOf(t, agentId);
    assert.equal(documents.length, files.length);
    for (const doc of documents) await runIndexJob(t, doc.id);
    if (t.database.features.vector) {
      await embedChunksJob.handle(
        { agentId },
        {
          db: t.database.db,
          clock: t.clock,
          log,
          jobId: 't',
          attempt: 1,
          embeddings: createHashedEmbedder(),
        },
      );
    }
    questions = parseGoldenSet(await readFile(GOLDEN, 'utf8'));
  });
  after(async () => {
    await t?.close();
  });

  const ctx = (embeddings?: ReturnType<typeof createHashedEmbedder> | null) => ({
    config: t.config,
    database: t.database,
    clock: t.clock,
    log,
    ...(embeddings !== undefined ? { embeddings } : {}),
  });

  test('the golden set ships 8-12 documents and about 25 questions, all expecting text', async () => {
    const files = (await readdir(KNOWLEDGE)).filter((file) => file.endsWith('.md') && file !== 'README.md');
    assert.ok(files.length >= 8 && files.length <= 12, `${files.length} documents`);
    assert.ok(questions.length >= 20 && questions.length <= 30, `${questions.length} questions`);
    assert.ok(questions.every((question) => question.expected_text !== undefined));
    // Fairness: no question is a copy of the text it expects.
    for (const question of questions) {
      assert.ok(
        !question.question.toLowerCase().includes((question.expected_text ?? '').toLowerCase()),
        `${question.id} copies its expected text`,
      );
    }
  });

  test('the eval data command reports recall@1, recall@5, MRR and the misses; recall@5 ≥ 0.8', async () => {
    const report = asReport(await DATA_COMMANDS.eval(ctx(), { agent: agentId, questions, limit: 10 }));
    assert.equal(report.agent_id, agentId);
    assert.equal(report.questions, questions.length);
    assert.equal(report.limit, 10);
    assert.equal(report.vector, t.database.features.vector);
    assert.equal(report.vector_errors, 0);
    assert.equal(report.results.length, questions.length);
    for (const key of ['recall_at_1', 'recall_at_5', 'mrr'] as const) {
      assert.ok(report[key] >= 0 && report[key] <= 1, `${key} = ${report[key]}`);
    }
    assert.ok(report.recall_at_1 <= report.recall_at_5);
    assert.ok(report.mrr >= report.recall_at_1 && report.mrr <= report.recall_at_5 + 0.2);
    // Misses are exactly the questions not in the top 5, each with up to 3 hits found.
    const missed = report.results.filter((result) => result.rank === null || result.rank > 5);
    assert.deepEqual(
      report.misses.map((miss) => miss.id),
      missed.map((result) => result.id),
    );
    for (const miss of report.misses) {
      assert.ok('text' in miss.expected);
      assert.ok(miss.top.length <= 3);
    }
    assert.ok(report.recall_at_5 >= 0.8, formatResult('eval', report, false));
    const text = formatResult('eval', report, false);
    assert.match(text, /recall@1 {2}\d+\.\d%/);
    assert.match(text, /recall@5 {2}\d+\.\d%/);
    assert.match(text, /MRR@10 {4}\d\.\d{3}/);
    assert.deepEqual(JSON.parse(formatResult('eval', report, true)), report);
    process.stderr.write(
      `# eval (vectors ${report.vector ? 'on' : 'off'}): recall@1 ${report.recall_at_1}, recall@5 ${report.recall_at_5}, MRR ${report.mrr}\n`,
    );
  });

  test('without vectors the command still answers and names the retrieval mode', async () => {
    const report = asReport(await DATA_COMMANDS.eval(ctx(null), { agent: agentId, questions }));
    assert.equal(report.vector, false);
    assert.equal(report.limit, 10);
    assert.equal(report.questions, questions.length);
    assert.ok(report.recall_at_5 >= 0.7, formatResult('eval', report, false));
    process.stderr.write(
      `# eval (vectors off): recall@1 ${report.recall_at_1}, recall@5 ${report.recall_at_5}, MRR ${report.mrr}\n`,
    );
  });

  test('--limit 1 retrieves one hit per question: recall@5 falls to recall@1', async () => {
    const report = asReport(await DATA_COMMANDS.eval(ctx(), { agent: agentId, questions, limit: 1 }));
    assert.equal(report.limit, 1);
    assert.equal(report.recall_at_5, report.recall_at_1);
    assert.equal(report.mrr, report.recall_at_1);
  });

  test('expected_url questions match the document url without caring about a trailing slash', async () => {
    // Text sources have no url: every such question is a miss, with its expectation echoed back.
    const report = asReport(
      await DATA_COMMANDS.eval(ctx(), {
        agent: agentId,
        questions: [{ id: 'u', question: 'return shoes', expected_url: 'https://shop.example.com/returns/' }],
      }),
    );
    assert.equal(report.recall_at_5, 0);
    assert.deepEqual(report.misses[0]?.expected, { url: 'https://shop.example.com/returns/' });
    assert.equal(report.misses[0]?.rank, null);
    assert.ok((report.misses[0]?.top.length ?? 0) > 0);
  });

  test('an unknown agent is a not_found naming the id; bad args are refused', async () => {
    const unknown = await appErrorOf(() =>
      DATA_COMMANDS.eval(ctx(), {
        agent: '01NOSUCHAGENT',
        questions: [{ question: 'q', expected_text: 'x' }],
      }),
    );
    assert.equal(unknown.code, 'not_found');
    assert.match(unknown.message, /01NOSUCHAGENT/);

    const empty = await appErrorOf(() => DATA_COMMANDS.eval(ctx(), { agent: agentId, questions: [] }));
    assert.equal(empty.code, 'validation_failed');
    const tooMany = await appErrorOf(() =>
      DATA_COMMANDS.eval(ctx(), { agent: agentId, questions, limit: 51 }),
    );
    assert.ok('limit' in tooMany.errors);
    const fifty = asReport(
      await DATA_COMMANDS.eval(ctx(), { agent: agentId, questions: questions.slice(0, 1), limit: 50 }),
    );
    assert.equal(fifty.limit, 50);
  });

  test('an agent of another workspace is found: the CLI is an operator tool', async () => {
    const other = await seedTenant(t, 'Other');
    const otherAgent = await createAgent(t, other, { name: 'Empty' });
    const report = asReport(
      await DATA_COMMANDS.eval(ctx(), { agent: otherAgent, questions: questions.slice(0, 2) }),
    );
    assert.equal(report.workspace_id, other.workspace.id);
    // No knowledge: nothing found, and the agent's chunks never leak in from another agent.
    assert.equal(report.recall_at_5, 0);
    assert.ok(report.misses.every((miss) => miss.top.length === 0));
  });
});

describe('cli eval: reading the golden file and the options', () => {
  const files: Record<string, string> = {
    '/work/good.jsonl':
      '{"question":"a?","expected_text":"A"}\n\n{"id":7,"question":"b?","expected_url":"https://x.test/b"}\n',
  };
  const read = async (path: string) => {
    const text = files[path];
    if (text === undefined)
      throw Object.assign(new Error(`ENOENT: no such file, open '${path}'`), { code: 'ENOENT' });
    return text;
  };
  const options = { cwd: '/work', read };

  test('reads the file relative to cwd, parses the options and the questions', async () => {
    const parsed = await readEvalOptions(
      { agent: 'A1', golden: 'good.jsonl', limit: '20', 'min-recall5': '0.8' },
      options,
    );
    assert.deepEqual(parsed, {
      args: {
        agent: 'A1',
        limit: 20,
        questions: [
          { question: 'a?', expected_text: 'A' },
          { id: 7, question: 'b?', expected_url: 'https://x.test/b' },
        ],
      },
      minRecall5: 0.8,
    });
    const defaults = await readEvalOptions({ agent: 'A1', golden: '/work/good.jsonl' }, options);
    assert.equal(defaults.args.limit, 10);
    assert.equal(defaults.minRecall5, null);
  });

  test('the shipped golden file reads through the real file system', async () => {
    const parsed = await readEvalOptions({ agent: 'A1', golden: GOLDEN });
    assert.ok(parsed.args.questions.length >= 20);
  });

  test('missing or bad options name the option; nothing is read', async () => {
    let reads = 0;
    const counting = {
      cwd: '/work',
      read: (path: string) => {
        reads += 1;
        return read(path);
      },
    };
    const missing = await appErrorOf(() => readEvalOptions({}, counting));
    assert.deepEqual(Object.keys(missing.errors).sort(), ['agent', 'golden']);
    for (const limit of ['0', '51', '2.5', 'ten', '']) {
      const error = await appErrorOf(() =>
        readEvalOptions({ agent: 'A', golden: 'good.jsonl', limit }, counting),
      );
      assert.ok('limit' in error.errors, limit);
    }
    for (const value of ['1.01', '-0.1', 'x', '']) {
      const error = await appErrorOf(() =>
        readEvalOptions({ agent: 'A', golden: 'good.jsonl', 'min-recall5': value }, counting),
      );
      assert.ok('min-recall5' in error.errors, value);
    }
    assert.equal(reads, 0);
    const edges = await readEvalOptions(
      { agent: 'A', golden: 'good.jsonl', limit: '50', 'min-recall5': '1' },
      counting,
    );
    assert.equal(edges.args.limit, 50);
    assert.equal(edges.minRecall5, 1);
  });

  test('an unreadable file names the resolved path', async () => {
    const error = await appErrorOf(() => readEvalOptions({ agent: 'A', golden: 'nope.jsonl' }, options));
    assert.match(error.errors.golden?.[0] ?? '', /\/work\/nope\.jsonl.*ENOENT/);
  });

  test('bad lines are all named by number, and nothing is returned', async () => {
    files['/work/bad.jsonl'] = [
      '{"question":"fine","expected_text":"ok"}',
      'not json',
      '{"expected_text":"no question"}',
      '{"question":"both","expected_text":"a","expected_url":"https://x.test"}',
      '',
      '{"question":"neither"}',
      '{"question":"   ","expected_text":"blank question"}',
    ].join('\n');
    const error = await appErrorOf(() => readEvalOptions({ agent: 'A', golden: 'bad.jsonl' }, options));
    assert.equal(error.code, 'validation_failed');
    assert.match(error.message, /\/work\/bad\.jsonl.*nothing was run/);
    const problems = error.errors.golden ?? [];
    assert.equal(problems.length, 5, problems.join('\n'));
    assert.match(problems[0] ?? '', /^line 2: not valid JSON/);
    assert.match(problems[1] ?? '', /^line 3: question: /);
    assert.match(
      problems[2] ?? '',
      /^line 4: needs exactly one of expected_url, expected_text or expected_urls\/expected_document_ids/,
    );
    assert.match(
      problems[3] ?? '',
      /^line 6: needs exactly one of expected_url, expected_text or expected_urls\/expected_document_ids/,
    );
    assert.match(problems[4] ?? '', /^line 7: question: must not be empty/);
  });

  test('an empty file is refused', async () => {
    files['/work/empty.jsonl'] = '\n\n';
    const error = await appErrorOf(() => readEvalOptions({ agent: 'A', golden: 'empty.jsonl' }, options));
    assert.match(error.errors.golden?.[0] ?? '', /no questions/);
  });
});
