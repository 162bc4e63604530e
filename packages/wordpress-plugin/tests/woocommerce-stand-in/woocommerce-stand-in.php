<?php

/**
 * Plugin Name: WooCommerce STAND-IN (tests only, not WooCommerce)
 * Description: A small stand-in for the few public WooCommerce functions the Chat Agent plugin
 * calls, for tests on a machine where WooCommerce cannot be installed. It is NOT WooCommerce and
 * must never be installed on a real site. Load it as a must-use plugin.
 *
 * What it defines (the signatures follow WooCommerce 3.0+):
 *  - class WooCommerce with ->cart (WC_Cart::apply_coupon, has_discount), and WC();
 *  - post type `product` (meta _sku, _price, _regular_price, _sale_price, _stock_status,
 *    _thumbnail_id, _stand_in_attributes = [label => [values]]), taxonomy product_cat,
 *    wc_get_product(), wc_get_products();
 *  - post type `shop_coupon` (title = code, excerpt = description, meta coupon_amount,
 *    discount_type, date_expires = unix time), WC_Coupon, wc_get_coupon_id_by_code();
 *  - orders kept in the option wc_stand_in_orders (add them with wc_stand_in_add_order()),
 *    WC_Order, wc_get_orders(), wc_get_order();
 *  - get_woocommerce_currency() (option woocommerce_currency, default USD), wc_attribute_label();
 *  - the action woocommerce_cart_loaded_from_session on wp_loaded, as WooCommerce fires it.
 * The coupon and order half is in woocommerce-stand-in-orders.php (load both).
 * Coupons applied to the cart are recorded in the option wc_stand_in_applied_coupons so tests
 * can see them.
 */

if (!defined('ABSPATH')) {
    exit;
}

class WC_DateTime extends DateTime
{
}

class WooCommerce
{
    public $cart;
    private static $instance;

    public static function instance()
    {
        if (self::$instance === null) {
            self::$instance = new self();
            self::$instance->cart = new WC_Cart();
        }
        return self::$instance;
    }
}

function WC()
{
    return WooCommerce::instance();
}

class WC_Cart
{
    private $applied = [];

    public function has_discount($code)
    {
        return in_array(wc_strtolower_stand_in($code), $this->applied, true);
    }

    public function apply_coupon($code)
    {
        if (wc_get_coupon_id_by_code($code) <= 0) {
            return false;
        }
        $this->applied[] = wc_strtolower_stand_in($code);
        $log = get_option('wc_stand_in_applied_coupons', []);
        $log = is_array($log) ? $log : [];
        $log[] = [
            'code' => $code,
            'cookie' => isset($_SERVER['HTTP_COOKIE']) ? (string) $_SERVER['HTTP_COOKIE'] : '',
            'time' => time(),
        ];
        update_option('wc_stand_in_applied_coupons', $log, false);
        return true;
    }
}

function wc_strtolower_stand_in($text)
{
    return function_exists('mb_strtolower') ? mb_strtolower((string) $text) : strtolower((string) $text);
}

class WC_Product_Attribute
{
    private $name;
    private $options;

    public function __construct($name, array $options)
    {
        $this->name = $name;
        $this->options = $options;
    }

    public function get_name()
    {
        return $this->name;
    }

    public function get_options()
    {
        return $this->options;
    }

    public function is_taxonomy()
    {
        return false;
    }
}

class WC_Product
{
    private $post;

    public function __construct($post)
    {
        $this->post = $post;
    }

    private function meta($key)
    {
        return (string) get_post_meta($this->post->ID, $key, true);
    }

    public function get_id()
    {
        return (int) $this->post->ID;
    }

    public function get_sku()
    {
        return $this->meta('_sku');
    }

    public function get_name()
    {
        return $this->post->post_title;
    }

    public function get_permalink()
    {
        return get_permalink($this->post);
    }

    public function get_image_id()
    {
        return (int) $this->meta('_thumbnail_id');
    }

    public function get_short_description()
    {
        return $this->post->post_excerpt;
    }

    public function get_description()
    {
        return $this->post->post_content;
    }

    public function get_price()
    {
        return $this->meta('_price');
    }

    public function get_regular_price()
    {
        return $this->meta('_regular_price');
    }

    public function get_sale_price()
    {
        return $this->meta('_sale_price');
    }

    public function get_stock_status()
    {
        return $this->meta('_stock_status') ?: 'instock';
    }

    public function is_on_sale()
    {
        return $this->get_sale_price() !== '' && $this->get_sale_price() !== $this->get_regular_price();
    }

    public function get_date_modified()
    {
        return new WC_DateTime($this->post->post_modified_gmt . ' UTC');
    }

    public function get_category_ids()
    {
        $ids = wp_get_post_terms($this->post->ID, 'product_cat', ['fields' => 'ids']);
        return is_array($ids) ? $ids : [];
    }

    public function get_attributes()
    {
        $raw = get_post_meta($this->post->ID, '_stand_in_attributes', true);
        $attributes = [];
        foreach (is_array($raw) ? $raw : [] as $name => $values) {
            $attributes[] = new WC_Product_Attribute((string) $name, array_map('strval', (array) $values));
        }
        return $attributes;
    }
}

function wc_get_product($id)
{
    $post = get_post((int) $id);
    return $post instanceof WP_Post && $post->post_type === 'product' ? new WC_Product($post) : false;
}

function wc_get_products($args = [])
{
    $ids = get_posts([
        'post_type' => 'product',
        'post_status' => $args['status'] ?? 'publish',
        'numberposts' => $args['limit'] ?? 10,
        'orderby' => 'ID',
        'order' => 'ASC',
        'fields' => 'ids',
    ]);
    return array_values(array_filter(array_map('wc_get_product', $ids)));
}

function wc_attribute_label($name)
{
    return $name;
}

function get_woocommerce_currency()
{
    return (string) get_option('woocommerce_currency', 'USD');
}

add_action('init', static function () {
    register_post_type('product', [
        'label' => 'Products (stand-in)',
        'public' => true,
        'has_archive' => true,
        'rewrite' => ['slug' => 'product'],
        'supports' => ['title', 'editor', 'excerpt', 'thumbnail'],
    ]);
    register_taxonomy('product_cat', 'product', ['label' => 'Product categories (stand-in)', 'public' => true]);
    register_post_type('shop_coupon', ['label' => 'Coupons (stand-in)', 'public' => false, 'supports' => ['title', 'excerpt']]);
    if (get_role('customer') === null) {
        add_role('customer', 'Customer', ['read' => true]);
    }
}, 5);

add_action('wp_loaded', static function () {
    WC();
    do_action('woocommerce_cart_loaded_from_session', WC()->cart);
}, 10);
