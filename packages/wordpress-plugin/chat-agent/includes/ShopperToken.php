<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * The shopper token, exactly as createShopperToken in packages/site-plugin/src/shopper-token.ts:
 * a compact HS256 JWS (header {"alg":"HS256","typ":"JWT"}, base64url without padding) over the
 * claims {wp_user_id, email_hash, iat}, keyed by the UTF-8 bytes of the shopper_signing_secret.
 */
final class ShopperToken
{
    /** SHA-256 hex of the trimmed, lower-cased email: the `email_hash` claim. */
    public static function emailHash(string $email): string
    {
        return hash('sha256', strtolower(trim($email)));
    }

    public static function create(int $wpUserId, string $email, string $secret, int $issuedAt): string
    {
        if ($wpUserId <= 0) {
            throw new \InvalidArgumentException('wp_user_id must be a positive integer.');
        }
        if (trim($email) === '') {
            throw new \InvalidArgumentException('The email is empty.');
        }
        if ($secret === '') {
            throw new \InvalidArgumentException('The signing secret is empty; run the handshake first.');
        }
        if ($issuedAt <= 0) {
            throw new \InvalidArgumentException('The clock gave an invalid time.');
        }
        $header = self::base64Url((string) json_encode(['alg' => 'HS256', 'typ' => 'JWT']));
        $claims = ['wp_user_id' => $wpUserId, 'email_hash' => self::emailHash($email), 'iat' => $issuedAt];
        $payload = self::base64Url((string) json_encode($claims));
        $signature = self::base64Url(hash_hmac('sha256', $header . '.' . $payload, $secret, true));
        return $header . '.' . $payload . '.' . $signature;
    }

    /**
     * Verifies a token made with `$secret` and returns its claims, or null (used by the tests and
     * handy for debugging; the service is the real verifier).
     *
     * @return array<string, mixed>|null
     */
    public static function verify(string $token, string $secret): ?array
    {
        $parts = explode('.', $token);
        if (count($parts) !== 3 || $secret === '') {
            return null;
        }
        $expected = self::base64Url(hash_hmac('sha256', $parts[0] . '.' . $parts[1], $secret, true));
        if (!hash_equals($expected, $parts[2])) {
            return null;
        }
        $header = json_decode(self::base64UrlDecode($parts[0]), true);
        if (!is_array($header) || ($header['alg'] ?? null) !== 'HS256') {
            return null;
        }
        $claims = json_decode(self::base64UrlDecode($parts[1]), true);
        return is_array($claims) ? $claims : null;
    }

    public static function base64Url(string $bytes): string
    {
        return rtrim(strtr(base64_encode($bytes), '+/', '-_'), '=');
    }

    public static function base64UrlDecode(string $text): string
    {
        return (string) base64_decode(strtr($text, '-_', '+/'), true);
    }
}
