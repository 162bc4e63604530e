<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * The contract's HMAC scheme: `X-Service-Signature: t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
 *
 * It agrees byte for byte with the service's signer and the TypeScript SDK; the shared vectors in
 * packages/contract/fixtures/hmac-vectors.json are the proof (tests/SignatureTest.php).
 */
final class Signature
{
    public const HEADER = 'X-Service-Signature';
    public const TOLERANCE_SECONDS = 300;
    private const MAX_TIMESTAMP = 999999999999;

    /**
     * Parses the header as strictly as the service: exactly the parts `t` and `v1`, once each;
     * `t` decimal without leading zeros (at most 12 digits); `v1` 64 hex digits. Null otherwise.
     *
     * @return array{t: int, v1: string}|null
     */
    public static function parseHeader(string $value): ?array
    {
        $parts = explode(',', $value);
        if (count($parts) !== 2) {
            return null;
        }
        $fields = [];
        foreach ($parts as $part) {
            $eq = strpos($part, '=');
            if ($eq === false || $eq === 0) {
                return null;
            }
            $name = substr($part, 0, $eq);
            if (array_key_exists($name, $fields)) {
                return null;
            }
            $fields[$name] = substr($part, $eq + 1);
        }
        if (!isset($fields['t'], $fields['v1'])) {
            return null;
        }
        if (preg_match('/^(?:0|[1-9][0-9]{0,11})$/D', $fields['t']) !== 1) {
            return null;
        }
        if (preg_match('/^[0-9a-fA-F]{64}$/D', $fields['v1']) !== 1) {
            return null;
        }
        return ['t' => (int) $fields['t'], 'v1' => strtolower($fields['v1'])];
    }

    /** The header value for a body: `t=<unix s>,v1=<hex>`, keyed by the UTF-8 bytes of `$key`. */
    public static function sign(string $key, string $body, int $timestamp): string
    {
        if ($timestamp < 0 || $timestamp > self::MAX_TIMESTAMP) {
            throw new \InvalidArgumentException('The timestamp must be whole, non-negative unix seconds.');
        }
        if ($key === '') {
            throw new \InvalidArgumentException('The signing key is empty.');
        }
        return 't=' . $timestamp . ',v1=' . hash_hmac('sha256', $timestamp . '.' . $body, $key);
    }

    /**
     * Verifies a signed body: 'missing' for an absent or empty header; 'mismatch' for a malformed
     * header, an empty key, a wrong MAC or a timestamp more than 300 s from `$now`; 'ok' otherwise.
     * The MAC is compared in constant time (hash_equals).
     */
    public static function verify(?string $header, string $key, string $body, int $now): string
    {
        if ($header === null || $header === '') {
            return 'missing';
        }
        $parsed = self::parseHeader($header);
        if ($parsed === null || $key === '') {
            return 'mismatch';
        }
        $expected = hash_hmac('sha256', $parsed['t'] . '.' . $body, $key);
        $matches = hash_equals($expected, $parsed['v1']);
        $fresh = abs($now - $parsed['t']) <= self::TOLERANCE_SECONDS;
        return $matches && $fresh ? 'ok' : 'mismatch';
    }
}
