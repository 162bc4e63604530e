import type { TAdminEvent } from '@service/contract';
import type { Database } from '../../db/database.js';
import { ADMIN_EVENTS_CHANNEL, parseNotification } from './admin-events.js';

/** What a stream subscribes with: each event of its workspace, and a call when some may have been missed. */
export type HubSubscriber = { onEvent(event: TAdminEvent): void; onGap(): void };

/**
 * One per app: LISTENs on the admin events channel once (on first use) and hands each
 * notification to the streams of its workspace only.
 */
export class AdminEventHub {
  private readonly byWorkspace = new Map<string, Set<HubSubscriber>>();
  private started: Promise<() => void> | null = null;

  constructor(private readonly listen: Database['listen']) {}

  /** Subscribes to a workspace's events; resolves once the store listens. Returns the unsubscribe. */
  async subscribe(workspaceId: string, subscriber: HubSubscriber): Promise<() => void> {
    let set = this.byWorkspace.get(workspaceId);
    if (!set) {
      set = new Set();
      this.byWorkspace.set(workspaceId, set);
    }
    set.add(subscriber);
    const remove = () => {
      set.delete(subscriber);
      if (set.size === 0 && this.byWorkspace.get(workspaceId) === set) this.byWorkspace.delete(workspaceId);
    };
    try {
      await this.start();
    } catch (error) {
      remove();
      throw error;
    }
    return remove;
  }

  /** Stops listening (the app closes). */
  async close(): Promise<void> {
    const started = this.started;
    this.started = null;
    this.byWorkspace.clear();
    if (started === null) return;
    const unlisten = await started.catch(() => null);
    unlisten?.();
  }

  private start(): Promise<() => void> {
    if (!this.started) {
      this.started = this.listen(
        ADMIN_EVENTS_CHANNEL,
        (payload) => this.dispatch(payload),
        () => {
          for (const set of this.byWorkspace.values()) for (const subscriber of set) subscriber.onGap();
        },
      );
      this.started.catch(() => {
        this.started = null;
      });
    }
    return this.started;
  }

  private dispatch(payload: string): void {
    const notification = parseNotification(payload);
    if (!notification) return;
    for (const subscriber of this.byWorkspace.get(notification.workspace_id) ?? []) {
      subscriber.onEvent(notification.event);
    }
  }
}
