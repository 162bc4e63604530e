<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * content_hash exactly as packages/site-plugin/src/content-hash.ts computes it: SHA-256 hex of a
 * canonical JSON (keys sorted at every level, term lists sorted by UTF-16 code unit, strings
 * escaped as JSON.stringify escapes them). modified_at and wp_id are never hashed.
 */
final class ContentHash
{
    private const JSON_FLAGS = JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE
        | JSON_UNESCAPED_LINE_TERMINATORS | JSON_INVALID_UTF8_SUBSTITUTE | JSON_THROW_ON_ERROR;

    /** @param array<string, mixed> $post a Post record (without content_hash) */
    public static function post(array $post): string
    {
        return hash('sha256', self::canonicalJson([
            'post_type' => $post['post_type'] ?? null,
            'permalink' => $post['permalink'] ?? null,
            'title' => $post['title'] ?? null,
            'content_html' => $post['content_html'] ?? null,
            'excerpt' => $post['excerpt'] ?? null,
            'language' => $post['language'] ?? null,
            'taxonomy_terms' => self::sortedList($post['taxonomy_terms'] ?? []),
        ]));
    }

    /** @param array<string, mixed> $product a Product record (without content_hash) */
    public static function product(array $product, bool $includePriceAndStock = true): string
    {
        $fields = [
            'sku' => $product['sku'] ?? null,
            'name' => $product['name'] ?? null,
            'permalink' => $product['permalink'] ?? null,
            'image_url' => $product['image_url'] ?? null,
            'short_description' => $product['short_description'] ?? null,
            'description' => $product['description'] ?? null,
            'categories' => self::sortedList($product['categories'] ?? []),
            'attributes' => self::sortedList($product['attributes'] ?? []),
        ];
        if ($includePriceAndStock) {
            foreach (['price', 'regular_price', 'sale_price', 'currency', 'stock_status', 'on_sale'] as $key) {
                $fields[$key] = $product[$key] ?? null;
            }
        }
        return hash('sha256', self::canonicalJson($fields));
    }

    /**
     * JSON with object keys sorted (code-unit order), no whitespace, and JSON.stringify's escaping:
     * only `"`, `\` and control characters are escaped; `/` and non-ASCII stay as they are.
     */
    public static function canonicalJson(mixed $value): string
    {
        if ($value === null) {
            return 'null';
        }
        if (is_array($value)) {
            if (array_is_list($value)) {
                return '[' . implode(',', array_map([self::class, 'canonicalJson'], $value)) . ']';
            }
            $keys = array_map('strval', array_keys($value));
            usort($keys, [self::class, 'compareCodeUnits']);
            $members = [];
            foreach ($keys as $key) {
                $members[] = json_encode($key, self::JSON_FLAGS) . ':' . self::canonicalJson($value[$key]);
            }
            return '{' . implode(',', $members) . '}';
        }
        return json_encode($value, self::JSON_FLAGS);
    }

    /**
     * Compares two UTF-8 strings by their UTF-16 code units, as JavaScript's `<` does (byte order
     * differs only for characters above U+FFFF against U+E000..U+FFFF).
     */
    public static function compareCodeUnits(string $a, string $b): int
    {
        if (preg_match('/[\x{E000}-\x{10FFFF}]/u', $a . $b) !== 1) {
            return strcmp($a, $b) <=> 0;
        }
        $ua = (string) mb_convert_encoding($a, 'UTF-16BE', 'UTF-8');
        $ub = (string) mb_convert_encoding($b, 'UTF-16BE', 'UTF-8');
        return strcmp($ua, $ub) <=> 0;
    }

    /**
     * @param mixed $list
     * @return list<string>
     */
    private static function sortedList(mixed $list): array
    {
        $items = is_array($list) ? array_values(array_map('strval', $list)) : [];
        usort($items, [self::class, 'compareCodeUnits']);
        return $items;
    }
}
