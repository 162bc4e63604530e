import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkLayers, readSources } from '../../../scripts/check-layers.mjs';

const srcDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
const repoDir = join(srcDir, '..', '..', '..');

/** A small source tree in the shape `checkLayers` reads. */
function tree(files: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(files));
}

describe('layering (docs/architecture.md)', () => {
  test('the service has no cycle and no import from a lower layer up to a higher one', () => {
    assert.deepEqual(checkLayers(readSources(srcDir)), []);
  });

  test('a clean tree passes: downward imports, one domain using another', () => {
    const files = tree({
      'db/queryable.ts': 'export type Queryable = unknown;\n',
      'services/context.ts': "import type { Queryable } from '../db/queryable.js';\n",
      'services/agents/agents.ts': "import { x } from '../knowledge/documents.js';\n",
      'services/knowledge/documents.ts': "import type { Queryable } from '../../db/queryable.js';\n",
      'surfaces/admin/agents.route.ts':
        "import Fastify from 'fastify';\nimport { y } from '../../services/agents/agents.js';\n",
    });
    assert.deepEqual(checkLayers(files), []);
  });

  test('a lower layer importing a higher one fails, type-only imports included', () => {
    const files = tree({
      'db/queryable.ts': "import type { TenantScope } from '../services/context.js';\n",
      'services/context.ts': 'export type TenantScope = unknown;\n',
      'services/agents/agents.ts': "import { app } from '../../surfaces/admin/index.js';\n",
      'surfaces/admin/index.ts': 'export const app = 1;\n',
    });
    const problems = checkLayers(files);
    assert.ok(
      problems.some((p) => p.startsWith('db/queryable.ts: imports services/context.ts from a higher layer')),
    );
    assert.ok(
      problems.some((p) => p.startsWith('services/agents/agents.ts: imports surfaces/admin/index.ts')),
    );
  });

  test('services, jobs and retrieval may not import Fastify', () => {
    const files = tree({ 'services/agents/agents.ts': "import type { FastifyRequest } from 'fastify';\n" });
    assert.deepEqual(checkLayers(files), [
      'services/agents/agents.ts: imports fastify; only the HTTP layer may',
    ]);
  });

  test('two service domains importing each other fail, even through types', () => {
    const files = tree({
      'services/agents/agents.ts': "import { syncKb } from '../knowledge/kb-index.js';\n",
      'services/knowledge/kb-index.ts': "import type { Agent } from '../agents/agents.js';\n",
    });
    assert.deepEqual(checkLayers(files), [
      'folders importing each other: services/agents, services/knowledge',
    ]);
  });

  test('files importing each other at run time fail; a type-only loop does not', () => {
    const runtime = tree({
      'crawl/a.ts': "import { b } from './b.js';\n",
      'crawl/b.ts': "import { a } from './a.js';\n",
    });
    assert.deepEqual(checkLayers(runtime), ['files importing each other: crawl/a.ts, crawl/b.ts']);
    const typesOnly = tree({
      'crawl/a.ts': "import type { B } from './b.js';\n",
      'crawl/b.ts': "import { a } from './a.js';\n",
    });
    assert.deepEqual(checkLayers(typesOnly), []);
  });

  test('a folder the rule does not place is reported, so a new folder gets a layer', () => {
    const files = tree({ 'billing/plans.ts': 'export const plans = [];\n' });
    assert.deepEqual(checkLayers(files), [
      'billing/plans.ts: billing is in no layer (add it to LAYERS in scripts/check-layers.mjs)',
    ]);
  });

  test('services/, jobs/ and chat/ that read the system clock fail; other layers and comments do not', () => {
    const files = tree({
      'clock.ts': 'export const systemClock = { now: () => new Date() };\n',
      'services/accounts/api-tokens.ts':
        "import type { Clock } from '../../clock.js';\n// not new Date()\nconst at = new Date( );\n",
      'services/knowledge/sources.ts': 'const ms = Date.now();\nconst parsed = new Date(row.at);\n',
      'chat/answer-engine.ts': 'const started = { now: Date.now };\n',
      'jobs/push-lead.ts': 'const pushedAt = new Date();\n',
      'crawl/crawl-site.ts': 'const startedAt = Date.now();\n',
    });
    const problems = checkLayers(files);
    assert.deepEqual(
      problems.map((problem) => problem.split(': reads the system clock')[0]),
      [
        'services/accounts/api-tokens.ts:3',
        'services/knowledge/sources.ts:1',
        'chat/answer-engine.ts:1',
        'jobs/push-lead.ts:1',
      ],
    );
    assert.match(problems[0] ?? '', /reads the system clock \(new Date\( \)\); take the injected Clock/);
    assert.match(problems[2] ?? '', /\(Date\.now\)/);
  });

  test("README's layout and docs/architecture.md name every folder that exists", () => {
    const layout =
      readFileSync(join(repoDir, 'README.md'), 'utf8').split('## Layout')[1]?.split('\n## ')[0] ?? '';
    const architecture = readFileSync(join(repoDir, 'docs', 'architecture.md'), 'utf8');
    const folders = (dir: string) =>
      readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
        .map((entry) => entry.name)
        .filter((name) => !['node_modules', 'data', 'dist'].includes(name));
    for (const name of folders(srcDir)) {
      assert.ok(layout.includes(`src/${name}/`), `README layout lacks src/${name}/`);
      assert.ok(architecture.includes(`\`${name}/\``), `docs/architecture.md lacks ${name}/`);
    }
    for (const name of folders(repoDir)) {
      assert.ok(layout.includes(`${name}/`), `README layout lacks ${name}/`);
    }
  });
});
