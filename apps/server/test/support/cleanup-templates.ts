// Run by scripts/run-tests.mjs after the test files: drops this run's PostgreSQL databases.
import { dropPostgresDatabases } from './template.js';

const serverUrl = process.env.TEST_DATABASE_URL;
if (serverUrl) await dropPostgresDatabases(serverUrl, process.env.TEST_RUN_ID ?? '');
