import type { Clock } from '../../src/clock.js';

/** A clock a test sets and moves: `now()` returns a copy of the pinned instant. */
export type TestClock = Clock & {
  /** Pins the clock to an instant. */
  set(instant: Date | number): void;
  /** Moves the clock forward (or back, with a negative amount) by milliseconds. */
  advance(ms: number): void;
};

/** A clock pinned at `start` that moves only when the test says so. */
export function createTestClock(start: Date | number): TestClock {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    set(instant) {
      current = new Date(instant).getTime();
    },
    advance(ms) {
      current += ms;
    },
  };
}
