/// <reference types="node" />
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { parseHTML } from 'linkedom';
import { registerTriggers } from './triggers.js';
import type { TRule } from './types.js';

/** A linkedom window with a 1000 px viewport over a 4000 px page and a fine pointer. */
function fakeWindow(pointer: 'fine' | 'coarse' = 'fine') {
  const { window, document } = parseHTML('<!doctype html><html><body></body></html>');
  Object.defineProperty(window, 'innerHeight', { value: 1000, configurable: true });
  Object.defineProperty(window, 'scrollY', { value: 0, writable: true, configurable: true });
  Object.defineProperty(document.documentElement, 'scrollHeight', { value: 4000, configurable: true });
  Object.defineProperty(window, 'matchMedia', {
    value: (query: string) => ({ matches: query.includes(pointer) }),
    configurable: true,
  });
  const scrollTo = (y: number) => {
    Object.defineProperty(window, 'scrollY', { value: y, configurable: true });
    window.dispatchEvent(new window.Event('scroll'));
  };
  const mouseOut = (clientY: number) => {
    const event = new window.Event('mouseout');
    Object.defineProperty(event, 'clientY', { value: clientY });
    Object.defineProperty(event, 'relatedTarget', { value: null });
    document.dispatchEvent(event);
  };
  return { window, scrollTo, mouseOut };
}

describe('registerTriggers', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  it('fires a scroll rule once, at its depth', () => {
    const { window, scrollTo } = fakeWindow();
    const fired: TRule[] = [];
    const rule: TRule = { trigger: 'scroll', threshold: 50, action: 'open' };
    registerTriggers(window, [rule], (r) => fired.push(r));
    scrollTo(900); // (900 + 1000) / 4000 = 47.5 %
    assert.equal(fired.length, 0);
    scrollTo(1000); // 50 %
    scrollTo(3000);
    assert.deepEqual(fired, [rule]);
  });

  it('fires time_on_page after its seconds', () => {
    const { window } = fakeWindow();
    const fired: string[] = [];
    registerTriggers(
      window,
      [{ trigger: 'time_on_page', threshold: 20, action: 'message', message: 'Hi' }],
      (r) => fired.push(r.trigger),
    );
    mock.timers.tick(19_999);
    assert.deepEqual(fired, []);
    mock.timers.tick(1);
    mock.timers.tick(60_000);
    assert.deepEqual(fired, ['time_on_page']);
  });

  it('fires idle only after that long without activity', () => {
    const { window } = fakeWindow();
    const fired: string[] = [];
    registerTriggers(window, [{ trigger: 'idle', threshold: 10, action: 'open' }], (r) =>
      fired.push(r.trigger),
    );
    mock.timers.tick(9_000);
    window.dispatchEvent(new window.Event('keydown'));
    mock.timers.tick(9_000);
    assert.deepEqual(fired, []);
    mock.timers.tick(1_000);
    assert.deepEqual(fired, ['idle']);
    window.dispatchEvent(new window.Event('mousemove'));
    mock.timers.tick(20_000);
    assert.deepEqual(fired, ['idle']);
  });

  it('fires exit intent when the pointer leaves through the top, on desktop only', () => {
    const desktop = fakeWindow('fine');
    const fired: string[] = [];
    registerTriggers(desktop.window, [{ trigger: 'exit_intent', action: 'open' }], (r) =>
      fired.push(r.trigger),
    );
    desktop.mouseOut(300);
    assert.deepEqual(fired, []);
    desktop.mouseOut(-2);
    desktop.mouseOut(-2);
    assert.deepEqual(fired, ['exit_intent']);

    const phone = fakeWindow('coarse');
    const none: string[] = [];
    registerTriggers(phone.window, [{ trigger: 'exit_intent', action: 'open' }], (r) => none.push(r.trigger));
    phone.mouseOut(-2);
    assert.deepEqual(none, []);
  });

  it('stops every rule when cleaned up', () => {
    const { window, scrollTo } = fakeWindow();
    const fired: string[] = [];
    const stop = registerTriggers(
      window,
      [
        { trigger: 'scroll', threshold: 10, action: 'open' },
        { trigger: 'time_on_page', threshold: 5, action: 'open' },
      ],
      (r) => fired.push(r.trigger),
    );
    stop();
    scrollTo(3000);
    mock.timers.tick(10_000);
    assert.deepEqual(fired, []);
  });

  it('keeps a throwing action inside the widget', () => {
    const { window, scrollTo } = fakeWindow();
    registerTriggers(window, [{ trigger: 'scroll', threshold: 10, action: 'open' }], () => {
      throw new Error('boom');
    });
    assert.doesNotThrow(() => scrollTo(3000));
  });
});
