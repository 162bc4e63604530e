<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * The conversation id from the first-party cookie `svc_conversation` the widget writes, read from
 * the raw Cookie header exactly as readConversationCookie in packages/site-plugin does.
 */
final class ConversationCookie
{
    public const NAME = 'svc_conversation';
    private const MAX_LENGTH = 64;

    /** URL-decoded id; null when absent, empty or longer than a conversation id can be. */
    public static function fromHeader(?string $cookieHeader): ?string
    {
        if ($cookieHeader === null || $cookieHeader === '') {
            return null;
        }
        foreach (explode(';', $cookieHeader) as $pair) {
            $eq = strpos($pair, '=');
            if ($eq === false || trim(substr($pair, 0, $eq)) !== self::NAME) {
                continue;
            }
            $value = trim(substr($pair, $eq + 1));
            if (strlen($value) >= 2 && $value[0] === '"' && substr($value, -1) === '"') {
                $value = substr($value, 1, -1);
            }
            $decoded = self::decode($value);
            if ($decoded === '' || mb_strlen($decoded, 'UTF-8') > self::MAX_LENGTH) {
                return null;
            }
            return $decoded;
        }
        return null;
    }

    private static function decode(string $value): string
    {
        // decodeURIComponent: no '+' to space, and invalid sequences leave the raw text.
        if (preg_match('/%(?![0-9a-fA-F]{2})/', $value) === 1) {
            return $value;
        }
        $decoded = rawurldecode($value);
        return mb_check_encoding($decoded, 'UTF-8') ? $decoded : $value;
    }
}
