import { type TWebhookDelivery, ZWebhookDelivery } from '@service/contract';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { z } from 'zod';
import { ApiError, api, apiPage } from '../api';
import { FormMessage } from '../components/field';
import { LoadMore } from '../components/load-more';
import { dateText } from '../date-text';
import { CONSOLE_PAGE_SIZE, type PagedList } from '../paged-list';

const ZDeliveryPage = z.object({
  data: z.array(ZWebhookDelivery),
  meta: z.object({ next_before: z.string().nullable() }),
});

const STATUS_TEXT: Record<TWebhookDelivery['status'], { label: string; badge: string }> = {
  pending: { label: 'Pending', badge: 'draft' },
  delivered: { label: 'Delivered', badge: 'ok' },
  failed: { label: 'Failed', badge: 'failed' },
};

/**
 * A webhook's delivery log, newest first, a page at a time (the service pages it with `before`,
 * as the audit log; the answer has the shape {@link LoadMore} reads).
 */
function useDeliveries(webhookId: string): PagedList<TWebhookDelivery> {
  const [items, setItems] = useState<TWebhookDelivery[] | null>(null);
  const [before, setBefore] = useState<string | null>(null);
  const [isLoadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const shown = useRef(0);
  const path = `/webhooks/${encodeURIComponent(webhookId)}/deliveries`;

  const read = async (limit: number, after: string | null) => {
    const query = new URLSearchParams({ limit: String(limit) });
    if (after) query.set('before', after);
    return apiPage(`${path}?${query}`, ZDeliveryPage);
  };
  const fail = (caught: unknown) => {
    if (caught instanceof ApiError && caught.status === 401) return;
    setError(caught instanceof Error ? caught.message : 'Could not load the deliveries.');
  };

  const reload = useCallback(async () => {
    try {
      // As many rows as are shown (at most the service's 200), so a refresh keeps the place.
      const page = await read(Math.min(200, Math.max(shown.current, CONSOLE_PAGE_SIZE)), null);
      shown.current = page.data.length;
      setItems(page.data);
      setBefore(page.meta.next_before);
      setError(null);
    } catch (caught) {
      fail(caught);
    }
  }, [path]);

  const loadMore = async () => {
    if (before === null) return;
    setLoadingMore(true);
    try {
      const page = await read(CONSOLE_PAGE_SIZE, before);
      setItems((current) => {
        const rows = [...(current ?? []), ...page.data];
        shown.current = rows.length;
        return rows;
      });
      setBefore(page.meta.next_before);
      setError(null);
    } catch (caught) {
      fail(caught);
    } finally {
      setLoadingMore(false);
    }
  };

  const replace = (next: TWebhookDelivery) =>
    setItems((current) => current?.map((row) => (row.id === next.id ? next : row)) ?? null);

  return { items, hasMore: before !== null, isLoadingMore, error, reload, loadMore, replace };
}

/** The request body as indented JSON (as sent when it is not JSON). */
function prettyJson(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** One webhook's deliveries: event, status, attempts, time, HTTP status; details and redelivery. */
export function DeliveryLog(props: { webhookId: string; label: string }) {
  const list = useDeliveries(props.webhookId);
  const load = list.reload;
  useEffect(() => {
    void load();
  }, [load]);
  const rows = list.items;
  return (
    <section class="delivery-log" aria-label={`Deliveries of ${props.label}`}>
      <div class="row-title">
        <h3>Deliveries</h3>
        <button type="button" class="button ghost small" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      {list.error ? <FormMessage kind="error">{list.error}</FormMessage> : null}
      {rows === null && list.error === null ? (
        <p class="muted" aria-busy="true">
          Loading deliveries…
        </p>
      ) : null}
      {rows?.length === 0 ? (
        <p class="muted">No deliveries yet: they appear here when an event happens.</p>
      ) : null}
      {rows && rows.length > 0 ? (
        <ul class="delivery-list" aria-label="Deliveries">
          {rows.map((delivery) => (
            <DeliveryRow key={delivery.id} delivery={delivery} onChanged={list.replace} />
          ))}
        </ul>
      ) : null}
      <LoadMore list={list} noun="deliveries" />
    </section>
  );
}

function DeliveryRow(props: { delivery: TWebhookDelivery; onChanged: (delivery: TWebhookDelivery) => void }) {
  const { delivery } = props;
  const [isBusy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: 'error' | 'info'; text: string } | null>(null);
  const status = STATUS_TEXT[delivery.status];
  const onRedeliver = async () => {
    setBusy(true);
    setMessage(null);
    try {
      const next = await api(
        `/webhooks/deliveries/${encodeURIComponent(delivery.id)}/redeliver`,
        ZWebhookDelivery,
        {
          method: 'POST',
        },
      );
      props.onChanged(next);
      setMessage({ kind: 'info', text: 'Queued again: it is sent with a fresh set of retries.' });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      setMessage({ kind: 'error', text: error instanceof Error ? error.message : 'Could not redeliver.' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <li class="delivery">
      <div class="row-title">
        <code class="delivery-event">{delivery.event}</code>
        <span class={`badge ${status.badge}`}>{status.label}</span>
      </div>
      <dl class="row-facts">
        <div>
          <dt>Created</dt>
          <dd>{dateText(delivery.created_at)}</dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>{delivery.attempts}</dd>
        </div>
        <div>
          <dt>HTTP status</dt>
          <dd>{delivery.last_status_code ?? '—'}</dd>
        </div>
        <div>
          <dt>Delivered</dt>
          <dd>{dateText(delivery.delivered_at, 'Not yet')}</dd>
        </div>
      </dl>
      {delivery.last_error ? <p class="delivery-error">{delivery.last_error}</p> : null}
      <details class="delivery-details">
        <summary>Request and response</summary>
        <h4>Request body</h4>
        <ScrollBody label="Request body" text={prettyJson(delivery.request_body)} />
        <h4>Response excerpt</h4>
        {delivery.last_response_excerpt === null ? (
          <p class="muted">No answer yet.</p>
        ) : (
          <ScrollBody label="Response excerpt" text={delivery.last_response_excerpt} />
        )}
      </details>
      <div class="actions">
        <button type="button" class="button ghost" disabled={isBusy} onClick={() => void onRedeliver()}>
          {isBusy ? 'Queuing…' : 'Redeliver'}
        </button>
      </div>
      {message ? <FormMessage kind={message.kind}>{message.text}</FormMessage> : null}
    </li>
  );
}

/** A body in a box that scrolls both ways when it is long or wide, reachable by keyboard. */
function ScrollBody(props: { label: string; text: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so keyboard users can scroll it (axe scrollable-region-focusable)
    <section class="delivery-body" tabIndex={0} aria-label={props.label}>
      <pre>
        <code>{props.text}</code>
      </pre>
    </section>
  );
}
