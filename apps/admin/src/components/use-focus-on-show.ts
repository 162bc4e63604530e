import type { RefObject } from 'preact';
import { useLayoutEffect } from 'preact/hooks';

/**
 * Moves focus to `ref` (a form's heading, say) when the element appears and whenever `key`
 * changes. A layout effect, so focus moves before the browser paints: with a plain effect it
 * moved a frame later, after a quick user (or test) had already focused a field and begun to
 * type, and the keystrokes went to the heading.
 */
export function useFocusOnShow(ref: RefObject<HTMLElement | null>, key?: unknown): void {
  useLayoutEffect(() => ref.current?.focus(), [key]);
}
