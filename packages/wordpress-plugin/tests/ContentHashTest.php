<?php

declare(strict_types=1);

namespace ChatAgent\Tests;

use ChatAgent\ContentHash;
use PHPUnit\Framework\TestCase;

/**
 * content_hash agrees with packages/site-plugin/src/content-hash.ts: tests/ts-vectors.json was
 * written by running the TypeScript functions (postContentHash, productContentHash).
 */
final class ContentHashTest extends TestCase
{
    /** @return array<string, mixed> */
    private static function vectors(): array
    {
        return json_decode((string) file_get_contents(__DIR__ . '/ts-vectors.json'), true, 512, JSON_THROW_ON_ERROR);
    }

    public function testPostHashMatchesTheTypeScriptFunction(): void
    {
        $v = self::vectors();
        self::assertSame($v['post_hash'], ContentHash::post($v['post']));
        self::assertSame($v['empty_post_hash'], ContentHash::post($v['empty_post']));
    }

    public function testProductHashMatchesTheTypeScriptFunction(): void
    {
        $v = self::vectors();
        self::assertSame($v['product_hash'], ContentHash::product($v['product']));
        self::assertSame($v['product_hash_no_price'], ContentHash::product($v['product'], false));
    }

    public function testNeitherModifiedAtNorWpIdNorTermOrderChangesTheHash(): void
    {
        $post = self::vectors()['post'];
        $hash = ContentHash::post($post);
        $post['modified_at'] = '2030-01-01T00:00:00+00:00';
        $post['wp_id'] = 999;
        $post['taxonomy_terms'] = array_reverse($post['taxonomy_terms']);
        self::assertSame($hash, ContentHash::post($post));
        $post['title'] .= '!';
        self::assertNotSame($hash, ContentHash::post($post));
    }

    public function testPriceChangesTheHashOnlyWhenIncluded(): void
    {
        $product = self::vectors()['product'];
        $changed = array_merge($product, ['price' => '1.00']);
        self::assertNotSame(ContentHash::product($product), ContentHash::product($changed));
        self::assertSame(ContentHash::product($product, false), ContentHash::product($changed, false));
    }

    public function testCanonicalJsonEscapesLikeJsonStringify(): void
    {
        self::assertSame('"a/b"', ContentHash::canonicalJson('a/b'));
        self::assertSame('"é東😀"', ContentHash::canonicalJson('é東😀'));
        self::assertSame('"\u0001\u001f\n\t\"\\\\"', ContentHash::canonicalJson("\x01\x1f\n\t\"\\"));
        self::assertSame("\"\u{2028}\u{2029}\"", ContentHash::canonicalJson("\u{2028}\u{2029}"));
        self::assertSame('{"a":[true,null],"b":"x"}', ContentHash::canonicalJson(['b' => 'x', 'a' => [true, null]]));
    }

    public function testSortsByUtf16CodeUnitsLikeJavaScript(): void
    {
        // U+FF21 (one unit, 0xFF21) sorts after U+1F600 (surrogates 0xD83D…) in JavaScript,
        // although its UTF-8 bytes sort before.
        self::assertGreaterThan(0, ContentHash::compareCodeUnits("\u{FF21}", "\u{1F600}"));
        self::assertLessThan(0, ContentHash::compareCodeUnits('Z', 'a'));
    }
}
