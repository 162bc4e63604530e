import { type TOrder, ZOrder } from '@service/contract';
import type { SiteOrder } from './site-store.js';

/**
 * The order-metadata keys the tracking URL is read from, in this order; the first that holds an
 * http(s) URL wins, else `tracking_url` is ''. `_tracking_url` is the common private meta key
 * (what most shipment plugins write), `_shipment_tracking_url` the key of shipment-tracking
 * extensions, and `tracking_url` a plain public key a site may set by hand.
 */
export const TRACKING_URL_META_KEYS = ['_tracking_url', '_shipment_tracking_url', 'tracking_url'] as const;

const ZTrackingUrl = ZOrder.shape.tracking_url;

/**
 * The first http(s) URL among {@link TRACKING_URL_META_KEYS} in an order's metadata, else ''.
 * Anything else (`javascript:`, `data:`, relative paths, junk) is ignored.
 */
export function findTrackingUrl(meta: SiteOrder['meta']): string {
  if (!meta) return '';
  for (const key of TRACKING_URL_META_KEYS) {
    const value = Object.hasOwn(meta, key) ? meta[key] : undefined;
    if (typeof value !== 'string') continue;
    const candidate = value.trim();
    // The contract's own rule (an http or https URL), so a chosen URL never fails the record.
    if (candidate !== '' && ZTrackingUrl.safeParse(candidate).success) return candidate;
  }
  return '';
}

/** A date as ISO 8601 in UTC with an explicit offset and whole seconds: `2026-10-01T07:30:00+00:00`. */
export function formatIsoWithOffset(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}

/**
 * Maps the site's order to the contract's Order record and validates it with `ZOrder`; null when
 * the store handed over something that is not a valid order (it is then left out of the answer).
 */
export function toOrderRecord(order: SiteOrder): TOrder | null {
  try {
    if (!(order.createdAt instanceof Date) || Number.isNaN(order.createdAt.getTime())) return null;
    const record = {
      id: order.id,
      number: order.number,
      status: order.status,
      total: order.total,
      currency: order.currency,
      date_created: formatIsoWithOffset(order.createdAt),
      items: order.items.map((item) => ({
        name: item.name,
        qty: item.qty,
        sku: item.sku,
        total: item.total,
      })),
      tracking_url: findTrackingUrl(order.meta),
      order_url: order.orderUrl,
    };
    const parsed = ZOrder.safeParse(record);
    return parsed.success ? parsed.data : null;
  } catch {
    // A store written in plain JS may hand over anything (items not an array, a getter that throws).
    return null;
  }
}
