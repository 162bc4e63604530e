// A worker process for the PostgreSQL lease test: works the probe queue with a short lease until
// it is killed. Its job never finishes; only its lease renewals show it is alive.
import { randomBytes } from 'node:crypto';
import { systemClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { JobQueue } from '../../src/queue/job-queue.js';
import { leaseProbeJob, openProbeDatabase, PROBE_LEASE } from './lease-probe.js';

const url = process.env.PROBE_DATABASE_URL;
if (!url) throw new Error('PROBE_DATABASE_URL is not set');
const { pool, db } = openProbeDatabase(url);
const queue = await JobQueue.start({
  pool,
  db,
  log: createLogger('silent'),
  definitions: [leaseProbeJob('killed', true)],
  lease: PROBE_LEASE,
});
await queue.work({ clock: systemClock, appKey: randomBytes(32) }, { pollingIntervalSeconds: 1 });
process.stdout.write('working\n');
