<?php

/**
 * Plugin Name: WooCommerce STAND-IN, coupons and orders (tests only, not WooCommerce)
 * Description: The coupon and order half of the stand-in described in woocommerce-stand-in.php:
 * WC_Coupon, wc_get_coupon_id_by_code(), WC_Order, wc_get_orders(), wc_get_order() and the test
 * helper wc_stand_in_add_order(). Load both files as must-use plugins.
 */

if (!defined('ABSPATH')) {
    exit;
}

class WC_Coupon
{
    private $post;

    public function __construct($idOrCode = 0)
    {
        $id = is_numeric($idOrCode) ? (int) $idOrCode : wc_get_coupon_id_by_code((string) $idOrCode);
        $this->post = $id > 0 ? get_post($id) : null;
    }

    public function get_id()
    {
        return $this->post ? (int) $this->post->ID : 0;
    }

    public function get_code()
    {
        return $this->post ? $this->post->post_title : '';
    }

    public function get_description()
    {
        return $this->post ? $this->post->post_excerpt : '';
    }

    public function get_amount()
    {
        return $this->post ? (string) get_post_meta($this->post->ID, 'coupon_amount', true) : '0';
    }

    public function get_discount_type()
    {
        $type = $this->post ? (string) get_post_meta($this->post->ID, 'discount_type', true) : '';
        return $type !== '' ? $type : 'fixed_cart';
    }

    public function get_date_expires()
    {
        $time = $this->post ? (int) get_post_meta($this->post->ID, 'date_expires', true) : 0;
        return $time > 0 ? new WC_DateTime('@' . $time) : null;
    }
}

function wc_get_coupon_id_by_code($code, $exclude = 0)
{
    global $wpdb;
    $code = trim((string) $code);
    if ($code === '') {
        return 0;
    }
    $id = $wpdb->get_var($wpdb->prepare(
        "SELECT ID FROM {$wpdb->posts} WHERE post_type = 'shop_coupon' AND post_status = 'publish'"
        . " AND LOWER(post_title) = %s AND ID <> %d ORDER BY ID ASC LIMIT 1",
        wc_strtolower_stand_in($code),
        (int) $exclude
    ));
    return (int) $id;
}

class WC_Order_Item_Product
{
    private $data;

    public function __construct(array $data)
    {
        $this->data = $data;
    }

    public function get_name()
    {
        return (string) ($this->data['name'] ?? '');
    }

    public function get_quantity()
    {
        return (int) ($this->data['qty'] ?? 1);
    }

    public function get_total()
    {
        return (string) ($this->data['total'] ?? '0');
    }

    public function get_product()
    {
        $sku = (string) ($this->data['sku'] ?? '');
        return new class ($sku) {
            private $sku;

            public function __construct($sku)
            {
                $this->sku = $sku;
            }

            public function get_sku()
            {
                return $this->sku;
            }
        };
    }
}

class WC_Order
{
    private $data;

    public function __construct(array $data)
    {
        $this->data = $data;
    }

    public function get_id()
    {
        return (int) $this->data['id'];
    }

    public function get_order_number()
    {
        return (string) ($this->data['number'] ?? $this->data['id']);
    }

    public function get_status()
    {
        return (string) ($this->data['status'] ?? 'processing');
    }

    public function get_total()
    {
        return (string) ($this->data['total'] ?? '0');
    }

    public function get_currency()
    {
        return (string) ($this->data['currency'] ?? get_woocommerce_currency());
    }

    public function get_customer_id()
    {
        return (int) ($this->data['customer_id'] ?? 0);
    }

    public function get_date_created()
    {
        return new WC_DateTime((string) ($this->data['date_created'] ?? 'now'));
    }

    public function get_items()
    {
        return array_map(static fn ($item) => new WC_Order_Item_Product((array) $item), (array) ($this->data['items'] ?? []));
    }

    public function get_meta($key, $single = true)
    {
        $meta = (array) ($this->data['meta'] ?? []);
        return $meta[$key] ?? '';
    }

    public function get_view_order_url()
    {
        return home_url('/my-account/view-order/' . $this->get_id() . '/');
    }
}

/** Test helper: stores an order (id, number, status, total, currency, date_created, customer_id, items, meta). */
function wc_stand_in_add_order(array $order)
{
    $orders = get_option('wc_stand_in_orders', []);
    $orders = is_array($orders) ? $orders : [];
    $order['id'] = (int) ($order['id'] ?? (count($orders) + 1000));
    $orders[$order['id']] = $order;
    update_option('wc_stand_in_orders', $orders, false);
    return $order['id'];
}

function wc_get_order($id)
{
    $orders = get_option('wc_stand_in_orders', []);
    return is_array($orders) && isset($orders[(int) $id]) ? new WC_Order($orders[(int) $id]) : false;
}

function wc_get_orders($args = [])
{
    $orders = get_option('wc_stand_in_orders', []);
    $found = [];
    foreach (is_array($orders) ? $orders : [] as $data) {
        if (isset($args['customer_id']) && (int) ($data['customer_id'] ?? 0) !== (int) $args['customer_id']) {
            continue;
        }
        $found[] = new WC_Order($data);
    }
    usort($found, static fn ($a, $b) => $b->get_date_created() <=> $a->get_date_created());
    $limit = (int) ($args['limit'] ?? 10);
    $page = max(1, (int) ($args['paged'] ?? 1));
    return $limit > 0 ? array_slice($found, ($page - 1) * $limit, $limit) : $found;
}
