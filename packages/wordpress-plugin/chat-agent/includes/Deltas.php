<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * Deltas: a post, page or product saved, published, unpublished, trashed or deleted is sent at
 * once (posts/changed or products/changed, action upsert or delete). A failed delta waits in the
 * option chat_agent_delta_queue and is retried by WP-Cron hook `chat_agent_delta` with backoff.
 */
final class Deltas
{
    public const HOOK = 'chat_agent_delta';
    private const MAX_ATTEMPTS = 8;

    public static function register(): void
    {
        add_action('wp_after_insert_post', [self::class, 'afterInsert'], 20, 4);
        add_action('before_delete_post', [self::class, 'beforeDelete'], 10, 2);
        add_action(self::HOOK, [self::class, 'processQueue']);
    }

    /** The kind a post type syncs as: posts, products, coupons, or null (not synced). */
    public static function kindOf(string $postType): ?string
    {
        if (in_array($postType, Records::POST_TYPES, true)) {
            return 'posts';
        }
        if (!Options::commerceActive()) {
            return null;
        }
        return match ($postType) {
            'product' => 'products',
            'shop_coupon' => 'coupons',
            default => null,
        };
    }

    /**
     * @param int $postId
     * @param \WP_Post $post
     * @param bool $update
     * @param \WP_Post|null $before
     */
    public static function afterInsert($postId, $post, $update, $before): void
    {
        if (!$post instanceof \WP_Post || wp_is_post_revision($post) || wp_is_post_autosave($post)) {
            return;
        }
        $kind = self::kindOf($post->post_type);
        if ($kind === null || !Options::isConfigured()) {
            return;
        }
        if ($kind === 'coupons') {
            self::sendCoupons();
            return;
        }
        $wasPublic = $before instanceof \WP_Post && Records::isPublic($before);
        if (Records::isPublic($post)) {
            self::send($kind, 'upsert', (int) $post->ID);
        } elseif ($wasPublic) {
            self::send($kind, 'delete', (int) $post->ID);
        }
    }

    /**
     * @param int $postId
     * @param \WP_Post|null $post
     */
    public static function beforeDelete($postId, $post = null): void
    {
        $post = $post instanceof \WP_Post ? $post : get_post((int) $postId);
        if (!$post instanceof \WP_Post || !Options::isConfigured()) {
            return;
        }
        $kind = self::kindOf($post->post_type);
        if ($kind === 'coupons') {
            // The coupon is still listed until it is gone: send the list once the deletion is done.
            add_action('deleted_post', [self::class, 'sendCoupons'], 10, 0);
            return;
        }
        if ($kind !== null && $post->post_status === 'publish') {
            self::send($kind, 'delete', (int) $post->ID);
        }
    }

    /** Replaces the service's coupon list with the site's published coupons. */
    public static function sendCoupons(): void
    {
        try {
            ServiceClient::fromOptions()->send('coupons/sync', Options::agentId(), ['coupons' => Records::coupons()]);
        } catch (ServiceError $error) {
            Options::addFailure('coupons', $error->getMessage());
        }
    }

    /** Sends one delta now; on failure it is queued for a retry. */
    public static function send(string $kind, string $action, int $wpId, int $attempts = 0): bool
    {
        try {
            ServiceClient::fromOptions()->send($kind . '/changed', Options::agentId(), [
                'action' => $action,
                $kind => [self::item($kind, $action, $wpId)],
            ]);
            return true;
        } catch (ServiceError $error) {
            Options::addFailure($kind . ' ' . $action . ' wp_id ' . $wpId, $error->getMessage());
            if ($error->isRetryable() && $attempts + 1 < self::MAX_ATTEMPTS) {
                self::enqueue($kind, $action, $wpId, $attempts + 1, $error->retryAfter);
            }
            return false;
        }
    }

    /** @return array<string, mixed> */
    private static function item(string $kind, string $action, int $wpId): array
    {
        if ($action === 'delete') {
            return ['wp_id' => $wpId];
        }
        if ($kind === 'products') {
            return Records::product(wc_get_product($wpId));
        }
        return Records::post(get_post($wpId));
    }

    private static function enqueue(string $kind, string $action, int $wpId, int $attempts, ?int $retryAfter): void
    {
        $queue = get_option(Options::DELTA_QUEUE, []);
        $queue = is_array($queue) ? $queue : [];
        $delay = RetryPolicy::cronBackoff($attempts, $retryAfter);
        // One entry per item: the newest action wins, it is re-read from the site when retried.
        $queue[$kind . ':' . $wpId] = [
            'kind' => $kind,
            'action' => $action,
            'wp_id' => $wpId,
            'attempts' => $attempts,
            'due' => time() + $delay,
        ];
        update_option(Options::DELTA_QUEUE, $queue, false);
        wp_schedule_single_event(time() + $delay, self::HOOK);
    }

    /** WP-Cron: retries the deltas that are due; the action is re-decided from the item's state now. */
    public static function processQueue(): void
    {
        $queue = get_option(Options::DELTA_QUEUE, []);
        if (!is_array($queue) || $queue === [] || !Options::isConfigured()) {
            return;
        }
        $later = [];
        foreach ($queue as $key => $entry) {
            if ((int) ($entry['due'] ?? 0) > time()) {
                $later[$key] = $entry;
                continue;
            }
            $wpId = (int) $entry['wp_id'];
            $post = get_post($wpId);
            $action = $post instanceof \WP_Post && Records::isPublic($post) ? 'upsert' : 'delete';
            unset($queue[$key]);
            update_option(Options::DELTA_QUEUE, $queue + $later, false);
            self::send((string) $entry['kind'], $action, $wpId, (int) $entry['attempts']);
        }
        $current = get_option(Options::DELTA_QUEUE, []);
        $current = is_array($current) ? $current : [];
        update_option(Options::DELTA_QUEUE, $current + $later, false);
        if ($later !== [] && wp_next_scheduled(self::HOOK) === false) {
            $next = min(array_map(static fn ($entry) => (int) $entry['due'], $later));
            wp_schedule_single_event(max($next, time() + 1), self::HOOK);
        }
    }
}
