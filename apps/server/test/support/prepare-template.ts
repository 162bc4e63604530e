// Run once by scripts/run-tests.mjs before the test files: prints the template locations as JSON.
import { createPostgresTemplate, ensurePgliteTemplate } from './template.js';

const runId = process.env.TEST_RUN_ID ?? String(process.pid);
const serverUrl = process.env.TEST_DATABASE_URL;
const result = {
  pgliteDump: await ensurePgliteTemplate(),
  postgresTemplate: serverUrl ? await createPostgresTemplate(serverUrl, runId) : null,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
