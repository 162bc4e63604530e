// Proactive triggers (agent.behavior_rules): scroll depth, idle time, exit intent and time on
// page. Each rule fires at most once per page view; its listeners are passive and removed
// once it fired.
import { on } from './dom.js';
import type { TRule } from './types.js';

const IDLE_EVENTS = ['mousemove', 'keydown', 'scroll', 'touchstart', 'pointerdown'];

/** The scroll depth of the page, in percent of its height (bottom of the viewport). */
export function scrollDepth(win: Window): number {
  const doc = win.document.documentElement;
  const height = Math.max(doc.scrollHeight, win.document.body?.scrollHeight ?? 0);
  if (height <= win.innerHeight) return 100;
  return ((win.scrollY + win.innerHeight) / height) * 100;
}

/** Starts watching every rule; returns a function that stops them all. */
export function registerTriggers(
  win: Window,
  rules: readonly TRule[],
  fire: (rule: TRule) => void,
): () => void {
  const stops: Array<() => void> = [];
  for (const rule of rules) {
    const cleanups: Array<() => void> = [];
    let fired = false;
    const stop = () => {
      for (const cleanup of cleanups.splice(0)) cleanup();
    };
    const trigger = () => {
      if (fired) return;
      fired = true;
      stop();
      fire(rule);
    };
    const seconds = Math.max(1, Math.min(3600, rule.threshold ?? 30)) * 1000;
    if (rule.trigger === 'scroll') {
      const check = () => {
        if (scrollDepth(win) >= Math.min(100, rule.threshold ?? 50)) trigger();
      };
      cleanups.push(on(win, 'scroll', check, true));
    } else if (rule.trigger === 'time_on_page') {
      const timer = setTimeout(() => {
        try {
          trigger();
        } catch {}
      }, seconds);
      cleanups.push(() => clearTimeout(timer));
    } else if (rule.trigger === 'idle') {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const reset = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          try {
            trigger();
          } catch {}
        }, seconds);
      };
      reset();
      for (const type of IDLE_EVENTS) cleanups.push(on(win, type, reset, true));
      cleanups.push(() => clearTimeout(timer));
    } else if (rule.trigger === 'exit_intent') {
      // Desktop only: a fine pointer leaving through the top edge is heading for the tabs or the address bar.
      const fine = typeof win.matchMedia === 'function' && win.matchMedia('(pointer: fine)').matches;
      if (fine) {
        cleanups.push(
          on(
            win.document,
            'mouseout',
            (event) => {
              const leaving = !('relatedTarget' in event && event.relatedTarget);
              if (leaving && 'clientY' in event && typeof event.clientY === 'number' && event.clientY <= 0)
                trigger();
            },
            true,
          ),
        );
      }
    }
    stops.push(stop);
  }
  return () => {
    for (const stop of stops) stop();
  };
}
