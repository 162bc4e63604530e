<?php

declare(strict_types=1);

namespace ChatAgent\Tests;

use ChatAgent\ShopperToken;
use PHPUnit\Framework\TestCase;

/** Shopper tokens agree with createShopperToken in packages/site-plugin (tests/ts-vectors.json). */
final class ShopperTokenTest extends TestCase
{
    /** @return array<string, mixed> */
    private static function vectors(): array
    {
        return json_decode((string) file_get_contents(__DIR__ . '/ts-vectors.json'), true, 512, JSON_THROW_ON_ERROR);
    }

    public function testTheTokenIsByteForByteTheTypeScriptOne(): void
    {
        $v = self::vectors();
        $s = $v['shopper'];
        self::assertSame($v['shopper_token'], ShopperToken::create($s['wp_user_id'], $s['email'], $s['secret'], $s['iat']));
        self::assertSame($v['shopper_email_hash'], ShopperToken::emailHash($s['email']));
    }

    public function testAPhpTokenVerifiesWithTheSameClaims(): void
    {
        $token = ShopperToken::create(42, ' Shopper@Example.com', 'secret-1', 1793523600);
        self::assertSame(
            ['wp_user_id' => 42, 'email_hash' => hash('sha256', 'shopper@example.com'), 'iat' => 1793523600],
            ShopperToken::verify($token, 'secret-1')
        );
        self::assertSame(['alg' => 'HS256', 'typ' => 'JWT'], json_decode(ShopperToken::base64UrlDecode(explode('.', $token)[0]), true));
        self::assertStringNotContainsString('=', $token);
        self::assertNull(ShopperToken::verify($token, 'another-secret'));
        $parts = explode('.', $token);
        $forged = ShopperToken::base64Url((string) json_encode(['wp_user_id' => 1, 'email_hash' => 'x', 'iat' => 1]));
        self::assertNull(ShopperToken::verify($parts[0] . '.' . $forged . '.' . $parts[2], 'secret-1'));
    }

    public function testTheTypeScriptTokenVerifiesInPhp(): void
    {
        $v = self::vectors();
        $claims = ShopperToken::verify($v['shopper_token'], $v['shopper']['secret']);
        self::assertSame(17, $claims['wp_user_id'] ?? null);
        self::assertSame(1793523600, $claims['iat'] ?? null);
    }

    /** @return iterable<string, array{int, string, string, int}> */
    public static function refused(): iterable
    {
        yield 'user 0' => [0, 'a@b.c', 's', 1];
        yield 'blank email' => [1, '  ', 's', 1];
        yield 'no secret' => [1, 'a@b.c', '', 1];
        yield 'no time' => [1, 'a@b.c', 's', 0];
    }

    /** @dataProvider refused */
    public function testRefusesWhatCannotBeAShopper(int $id, string $email, string $secret, int $iat): void
    {
        $this->expectException(\InvalidArgumentException::class);
        ShopperToken::create($id, $email, $secret, $iat);
    }
}
