// The entry of a worker thread whose module is TypeScript (tests run the sources through tsx).
// On Node 20 a thread inherits `--import tsx` but only tsx's require hook works there, not its
// ESM loader, so the module is required (tsx compiles it to CommonJS). See sibling-module.ts.
const { workerData } = require('node:worker_threads');

require(workerData.tsModulePath);
