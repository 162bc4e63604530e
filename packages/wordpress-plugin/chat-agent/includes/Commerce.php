<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * The WooCommerce calls, all public functions available since WooCommerce 3.0: wc_get_orders,
 * WC_Order getters, wc_get_coupon_id_by_code, WC()->cart->apply_coupon. Callers check
 * Options::commerceActive() (class_exists('WooCommerce')) first.
 */
final class Commerce
{
    /** The order-metadata keys the tracking URL is read from, first http(s) URL wins. */
    public const TRACKING_URL_META_KEYS = ['_tracking_url', '_shipment_tracking_url', 'tracking_url'];
    /** Orders read per page while looking for an order number. */
    public const ORDER_PAGE_SIZE = 100;
    /** Pages read at most while looking for an order number: the customer's newest 2,000 orders. */
    public const ORDER_NUMBER_PAGES = 20;

    /**
     * The user's orders, newest first, at most `$limit`; only the one numbered `$orderNumber`
     * (any case) when given. Never another customer's orders.
     *
     * @return list<array<string, mixed>>
     */
    public static function findOrders(int $wpUserId, int $limit, ?string $orderNumber): array
    {
        $wanted = $orderNumber === null ? null : strtolower($orderNumber);
        $orders = [];
        // Without a number: the newest `$limit`. With one: the customer's orders a page at a time,
        // newest first, until it is found; bounded so the answer stays within the service's 5 s.
        $pages = $wanted === null ? 1 : self::ORDER_NUMBER_PAGES;
        for ($page = 1; $page <= $pages && count($orders) < $limit; $page++) {
            $found = wc_get_orders([
                'customer_id' => $wpUserId,
                'limit' => $wanted === null ? $limit : self::ORDER_PAGE_SIZE,
                'paged' => $page,
                'orderby' => 'date',
                'order' => 'DESC',
                'type' => 'shop_order',
            ]);
            $found = is_array($found) ? $found : [];
            foreach ($found as $order) {
                if (count($orders) >= $limit) {
                    break;
                }
                if (!is_object($order) || (int) $order->get_customer_id() !== $wpUserId) {
                    continue;
                }
                $record = self::orderRecord($order);
                if ($record !== null && ($wanted === null || strtolower($record['number']) === $wanted)) {
                    $orders[] = $record;
                }
            }
            if (count($found) < self::ORDER_PAGE_SIZE) {
                break;
            }
        }
        return $orders;
    }

    /** @return array<string, mixed>|null the contract's Order record; null when it cannot be one */
    public static function orderRecord(object $order): ?array
    {
        $created = $order->get_date_created();
        $total = (string) $order->get_total();
        $orderUrl = (string) $order->get_view_order_url();
        if (!$created instanceof \DateTimeInterface || !self::isDecimal($total) || !self::isHttpUrl($orderUrl)) {
            return null;
        }
        $items = [];
        foreach ((array) $order->get_items() as $item) {
            $product = is_object($item) && method_exists($item, 'get_product') ? $item->get_product() : null;
            $lineTotal = (string) $item->get_total();
            $items[] = [
                'name' => (string) $item->get_name(),
                'qty' => (int) $item->get_quantity(),
                'sku' => is_object($product) ? (string) $product->get_sku() : '',
                'total' => self::isDecimal($lineTotal) ? $lineTotal : '0',
            ];
        }
        $utc = (new \DateTimeImmutable('@' . $created->getTimestamp()))->setTimezone(new \DateTimeZone('UTC'));
        return [
            'id' => (int) $order->get_id(),
            'number' => (string) $order->get_order_number(),
            'status' => (string) $order->get_status(),
            'total' => $total,
            'currency' => (string) $order->get_currency(),
            'date_created' => $utc->format('Y-m-d\TH:i:s') . '+00:00',
            'items' => $items,
            'tracking_url' => self::trackingUrl($order),
            'order_url' => $orderUrl,
        ];
    }

    private static function trackingUrl(object $order): string
    {
        foreach (self::TRACKING_URL_META_KEYS as $key) {
            $value = $order->get_meta($key, true);
            if (is_string($value) && self::isHttpUrl(trim($value))) {
                return trim($value);
            }
        }
        return '';
    }

    public static function isHttpUrl(string $value): bool
    {
        return preg_match('#^https?://[^\s/?\#]+#i', $value) === 1 && filter_var($value, FILTER_VALIDATE_URL) !== false;
    }

    private static function isDecimal(string $value): bool
    {
        return preg_match('/^-?\d+(?:\.\d+)?$/D', $value) === 1;
    }

    /** Whether a published coupon with this code exists. */
    public static function couponExists(string $code): bool
    {
        return (int) wc_get_coupon_id_by_code($code) > 0;
    }

    /** Applies a code to the current shopper's cart; false when WooCommerce refuses it. */
    public static function applyCoupon(string $code): bool
    {
        $woo = function_exists('WC') ? WC() : null;
        if (!is_object($woo) || !isset($woo->cart) || !is_object($woo->cart)) {
            return false;
        }
        if (method_exists($woo->cart, 'has_discount') && $woo->cart->has_discount($code)) {
            return true;
        }
        return (bool) $woo->cart->apply_coupon($code);
    }
}
