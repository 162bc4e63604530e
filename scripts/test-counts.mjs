// A test reporter for scripts/run-tests.mjs: appends one line per finished test to the file named by
// TEST_COUNTS_FILE, synchronously, so the counts survive `--test-force-exit` (which ends the run
// before a reporter's file stream is flushed). Suites, and tests failing only because a subtest
// failed, are not counted: their tests are. Each top-level test or suite also leaves its file and
// duration ("file <ms> <path>"), which run-tests.mjs sums per file for its slowest-files table. It
// prints nothing.
import { appendFileSync } from 'node:fs';
import { Transform } from 'node:stream';

const file = process.env.TEST_COUNTS_FILE;

function outcomeOf(event) {
  if (event.type !== 'test:pass' && event.type !== 'test:fail') return null;
  const { data } = event;
  if (data.details?.type === 'suite') return null;
  if (event.type === 'test:fail' && data.details?.error?.failureType === 'subtestsFailed') return null;
  if (data.skip || data.todo) return 'skipped';
  return event.type === 'test:pass' ? 'passed' : 'failed';
}

export default new Transform({
  writableObjectMode: true,
  transform(event, _encoding, done) {
    const outcome = file ? outcomeOf(event) : null;
    if (outcome) appendFileSync(file, `${outcome}\n`);
    const { type, data } = event;
    const finished = type === 'test:pass' || type === 'test:fail';
    if (file && finished && data.nesting === 0 && data.file)
      appendFileSync(file, `file ${Math.round(data.details?.duration_ms ?? 0)} ${data.file}\n`);
    done();
  },
});
