<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * When to retry a call to the service: 429 after its Retry-After (seconds or an HTTP date; 1, 2,
 * 4… s without one), 5xx and no answer with exponential backoff. Nothing else is retried.
 */
final class RetryPolicy
{
    public const MAX_RETRIES = 3;
    /** Longest wait spent sleeping inside one request; longer waits are rescheduled on WP-Cron. */
    public const MAX_INLINE_WAIT = 10;

    public static function isRetryable(int $status): bool
    {
        return $status === 0 || $status === 429 || $status >= 500;
    }

    /** Seconds to wait before retry number `$attempt` (0-based). */
    public static function delay(int $status, ?string $retryAfter, int $attempt, int $now): int
    {
        if ($status === 429 && $retryAfter !== null) {
            $parsed = self::parseRetryAfter($retryAfter, $now);
            if ($parsed !== null) {
                return $parsed;
            }
        }
        return min(2 ** $attempt, 60);
    }

    /** Retry-After as seconds from now (delta seconds or an HTTP date); null when unreadable. */
    public static function parseRetryAfter(string $value, int $now): ?int
    {
        $value = trim($value);
        if (preg_match('/^\d{1,9}$/D', $value) === 1) {
            return (int) $value;
        }
        $time = strtotime($value);
        if ($time === false || preg_match('/[a-z]{3}/i', $value) !== 1) {
            return null;
        }
        return max(0, $time - $now);
    }

    /** Backoff for a cron retry of a failed batch or delta: 30 s, 60 s, 120 s… up to 1 hour. */
    public static function cronBackoff(int $failures, ?int $retryAfter = null): int
    {
        $backoff = min(30 * 2 ** max(0, $failures - 1), 3600);
        return max($backoff, $retryAfter ?? 0);
    }
}
