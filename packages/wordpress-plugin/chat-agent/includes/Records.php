<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * Builds the contract's Post, Product and Coupon records from WordPress (and WooCommerce) data,
 * and lists what a full sync sends: published, not password-protected, ascending wp_id.
 */
final class Records
{
    /** Post types synced as posts. */
    public const POST_TYPES = ['post', 'page'];

    /**
     * Published posts and pages after a cursor, as records with content_hash.
     *
     * @return list<array<string, mixed>>
     */
    public static function listPosts(int $afterId, int $limit): array
    {
        $records = [];
        foreach (self::publishedIds(self::POST_TYPES, $afterId, $limit) as $id) {
            $post = get_post($id);
            if ($post instanceof \WP_Post) {
                $records[] = self::post($post);
            }
        }
        return $records;
    }

    /**
     * Published products after a cursor (WooCommerce active only).
     *
     * @return list<array<string, mixed>>
     */
    public static function listProducts(int $afterId, int $limit): array
    {
        $records = [];
        foreach (self::publishedIds(['product'], $afterId, $limit) as $id) {
            $product = wc_get_product($id);
            if (is_object($product)) {
                $records[] = self::product($product);
            }
        }
        return $records;
    }

    /** How many items a full sync of the kind sends (for the progress bar). */
    public static function count(string $kind): int
    {
        global $wpdb;
        $types = $kind === 'products' ? ['product'] : self::POST_TYPES;
        $placeholders = implode(',', array_fill(0, count($types), '%s'));
        $sql = "SELECT COUNT(*) FROM {$wpdb->posts} WHERE post_type IN ($placeholders)"
            . " AND post_status = 'publish' AND post_password = ''";
        return (int) $wpdb->get_var($wpdb->prepare($sql, ...$types));
    }

    /**
     * @param list<string> $types
     * @return list<int>
     */
    private static function publishedIds(array $types, int $afterId, int $limit): array
    {
        global $wpdb;
        $placeholders = implode(',', array_fill(0, count($types), '%s'));
        $sql = "SELECT ID FROM {$wpdb->posts} WHERE post_type IN ($placeholders)"
            . " AND post_status = 'publish' AND post_password = '' AND ID > %d ORDER BY ID ASC LIMIT %d";
        $ids = $wpdb->get_col($wpdb->prepare($sql, ...array_merge($types, [$afterId, $limit])));
        return array_map('intval', $ids);
    }

    /** Whether a post is one the service should have: synced type, published, no password. */
    public static function isPublic(\WP_Post $post): bool
    {
        return $post->post_status === 'publish' && $post->post_password === '';
    }

    /** @return array<string, mixed> a Post record with its content_hash */
    public static function post(\WP_Post $post): array
    {
        $previous = $GLOBALS['post'] ?? null;
        $GLOBALS['post'] = $post;
        setup_postdata($post);
        $content = (string) apply_filters('the_content', $post->post_content);
        $GLOBALS['post'] = $previous;
        if ($previous instanceof \WP_Post) {
            setup_postdata($previous);
        } else {
            wp_reset_postdata();
        }
        $record = [
            'wp_id' => (int) $post->ID,
            'post_type' => $post->post_type,
            'permalink' => (string) get_permalink($post),
            'title' => self::plain((string) get_the_title($post)),
            'content_html' => $content,
            'excerpt' => self::plain((string) $post->post_excerpt),
            'modified_at' => (string) get_post_modified_time('c', true, $post),
            'language' => self::language(),
            'taxonomy_terms' => self::terms($post),
        ];
        $record['content_hash'] = ContentHash::post($record);
        return $record;
    }

    /**
     * @param object $product a WC_Product
     * @return array<string, mixed> a Product record with its content_hash
     */
    public static function product(object $product): array
    {
        $imageId = (int) $product->get_image_id();
        $image = $imageId > 0 ? wp_get_attachment_url($imageId) : '';
        $modified = $product->get_date_modified();
        $categories = [];
        foreach ((array) $product->get_category_ids() as $termId) {
            $term = get_term((int) $termId, 'product_cat');
            if ($term instanceof \WP_Term) {
                $categories[] = self::plain($term->name);
            }
        }
        $record = [
            'wp_id' => (int) $product->get_id(),
            'sku' => (string) $product->get_sku(),
            'name' => self::plain((string) $product->get_name()),
            'permalink' => (string) $product->get_permalink(),
            'image_url' => is_string($image) ? $image : '',
            'short_description' => (string) $product->get_short_description(),
            'description' => (string) $product->get_description(),
            'price' => self::decimal($product->get_price()),
            'regular_price' => self::decimal($product->get_regular_price()),
            'sale_price' => self::decimal($product->get_sale_price()),
            'currency' => function_exists('get_woocommerce_currency') ? (string) get_woocommerce_currency() : 'USD',
            'stock_status' => (string) ($product->get_stock_status() ?: 'instock'),
            'on_sale' => (bool) $product->is_on_sale(),
            'modified_at' => $modified instanceof \DateTimeInterface
                ? $modified->format('c') : (string) get_post_modified_time('c', true, (int) $product->get_id()),
            'categories' => $categories,
            'attributes' => self::attributes($product),
        ];
        $record['content_hash'] = ContentHash::product($record);
        return $record;
    }

    /**
     * Every published coupon, as Coupon records.
     *
     * @return list<array<string, mixed>>
     */
    public static function coupons(): array
    {
        global $wpdb;
        $ids = $wpdb->get_col(
            "SELECT ID FROM {$wpdb->posts} WHERE post_type = 'shop_coupon' AND post_status = 'publish' ORDER BY ID ASC"
        );
        $coupons = [];
        foreach ($ids as $id) {
            $coupon = new \WC_Coupon((int) $id);
            $code = trim((string) $coupon->get_code());
            if ($code === '') {
                continue;
            }
            $amount = self::decimal($coupon->get_amount());
            $expires = $coupon->get_date_expires();
            $coupons[] = [
                'code' => $code,
                'label' => self::plain((string) $coupon->get_description()) ?: $code,
                'discount' => $coupon->get_discount_type() === 'percent' ? $amount . '%' : $amount,
                'expires_at' => $expires instanceof \DateTimeInterface ? $expires->format('c') : null,
            ];
        }
        return $coupons;
    }

    /** The site's language tag in lower case (`en_US` → `en-us`). */
    public static function language(): string
    {
        return strtolower(str_replace('_', '-', (string) get_locale()));
    }

    /** @return list<string> */
    private static function terms(\WP_Post $post): array
    {
        $names = [];
        foreach (get_object_taxonomies($post->post_type, 'objects') as $taxonomy) {
            if (!$taxonomy->public || $taxonomy->name === 'post_format') {
                continue;
            }
            $terms = get_the_terms($post, $taxonomy->name);
            if (is_array($terms)) {
                foreach ($terms as $term) {
                    $names[] = self::plain($term->name);
                }
            }
        }
        return array_values(array_unique($names));
    }

    /** @return list<string> `<name>: <value list>` */
    private static function attributes(object $product): array
    {
        $lines = [];
        foreach ((array) $product->get_attributes() as $attribute) {
            if (!is_object($attribute) || !method_exists($attribute, 'get_options')) {
                continue;
            }
            $name = (string) $attribute->get_name();
            $label = function_exists('wc_attribute_label') ? (string) wc_attribute_label($name) : $name;
            $values = [];
            foreach ((array) $attribute->get_options() as $option) {
                if ($attribute->is_taxonomy()) {
                    $term = get_term((int) $option, $name);
                    if ($term instanceof \WP_Term) {
                        $values[] = $term->name;
                    }
                } else {
                    $values[] = (string) $option;
                }
            }
            $lines[] = self::plain($label) . ': ' . self::plain(implode(', ', $values));
        }
        return $lines;
    }

    private static function plain(string $text): string
    {
        return trim(html_entity_decode(wp_strip_all_tags($text), ENT_QUOTES | ENT_HTML5, 'UTF-8'));
    }

    private static function decimal(mixed $value): string
    {
        $text = trim((string) $value);
        return preg_match('/^-?\d+(?:\.\d+)?$/D', $text) === 1 ? $text : '';
    }
}
