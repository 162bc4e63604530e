<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * Staged coupons: cart/coupon keeps the code 15 minutes in a transient keyed
 * `staged-coupon:<conversation_id>` (with the plugin's prefix); the shopper's next page load finds
 * the conversation through the cookie `svc_conversation`, takes (reads and deletes) the code and
 * applies it to the WooCommerce cart, so it is applied at most once.
 */
final class CouponStaging
{
    public const TTL = 900;
    public const PREFIX = 'chat_agent_staged-coupon:';

    public static function register(): void
    {
        add_action('wp_loaded', [self::class, 'onLoaded'], 20);
    }

    public static function key(string $conversationId): string
    {
        return self::PREFIX . $conversationId;
    }

    public static function stage(string $conversationId, string $code): void
    {
        set_transient(self::key($conversationId), $code, self::TTL);
    }

    /** Reads and removes the staged code; null when nothing waits. */
    public static function take(string $conversationId): ?string
    {
        $key = self::key($conversationId);
        $code = get_transient($key);
        if (!is_string($code) || $code === '') {
            return null;
        }
        delete_transient($key);
        return $code;
    }

    /** On a front-end page load: apply once the WooCommerce cart is loaded from the session. */
    public static function onLoaded(): void
    {
        if (is_admin() || wp_doing_cron() || !Options::commerceActive()) {
            return;
        }
        $cookie = isset($_SERVER['HTTP_COOKIE']) ? (string) $_SERVER['HTTP_COOKIE'] : null;
        if (ConversationCookie::fromHeader($cookie) === null) {
            return;
        }
        if (did_action('woocommerce_cart_loaded_from_session') > 0) {
            self::applyStaged();
        } else {
            add_action('woocommerce_cart_loaded_from_session', [self::class, 'applyStaged']);
        }
    }

    public static function applyStaged(): void
    {
        $cookie = isset($_SERVER['HTTP_COOKIE']) ? (string) $_SERVER['HTTP_COOKIE'] : null;
        $conversationId = ConversationCookie::fromHeader($cookie);
        if ($conversationId === null) {
            return;
        }
        $code = self::take($conversationId);
        if ($code !== null) {
            Commerce::applyCoupon($code);
        }
    }
}
