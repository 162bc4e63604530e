<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * The widget embed: the service's script tag in the footer of front-end pages, with the agent id,
 * the page's locale and, for a logged-in user only, a signed shopper token; such pages are sent
 * with `Cache-Control: private, no-store` so no cache ever serves one user's token to another.
 */
final class Widget
{
    public static function register(): void
    {
        add_action('template_redirect', [self::class, 'headers']);
        add_action('wp_footer', [self::class, 'render']);
    }

    /** Whether this front-end page gets the widget. */
    public static function shouldRender(): bool
    {
        if (is_admin() || !Options::widgetEnabled() || Options::agentId() === '' || Options::serviceUrl() === '') {
            return false;
        }
        $path = (string) wp_parse_url(isset($_SERVER['REQUEST_URI']) ? (string) $_SERVER['REQUEST_URI'] : '/', PHP_URL_PATH);
        $objectId = (int) get_queried_object_id();
        return !self::isExcluded((string) get_option(Options::WIDGET_EXCLUDE, ''), $path, $objectId);
    }

    /**
     * Whether one of the exclusion lines (a post ID, a path, or a path prefix ending in `*`)
     * matches the page. Paths compare without their trailing slash.
     */
    public static function isExcluded(string $rules, string $path, int $objectId): bool
    {
        $path = '/' . trim($path, '/');
        foreach (preg_split('/\r\n|\r|\n/', $rules) ?: [] as $line) {
            $line = trim($line);
            if ($line === '') {
                continue;
            }
            if (ctype_digit($line)) {
                if ($objectId > 0 && (int) $line === $objectId) {
                    return true;
                }
                continue;
            }
            $prefix = str_ends_with($line, '*');
            $rule = '/' . trim(rtrim($line, '*'), '/');
            if ($path === $rule || ($prefix && str_starts_with($path, rtrim($rule, '/') . '/'))) {
                return true;
            }
        }
        return false;
    }

    private static function shopperToken(): ?string
    {
        $user = wp_get_current_user();
        $secret = Options::signingSecret();
        if (!$user->exists() || $secret === '' || trim((string) $user->user_email) === '') {
            return null;
        }
        return ShopperToken::create((int) $user->ID, (string) $user->user_email, $secret, time());
    }

    /** Logged-in pages with the widget carry a token: never cacheable. */
    public static function headers(): void
    {
        if (is_user_logged_in() && self::shouldRender() && !headers_sent()) {
            nocache_headers();
            header('Cache-Control: private, no-store');
        }
    }

    public static function render(): void
    {
        if (!self::shouldRender()) {
            return;
        }
        $token = self::shopperToken();
        $src = Options::serviceUrl() . '/widget/widget.js';
        printf(
            '<script src="%1$s" data-agent-id="%2$s" data-locale="%3$s"%4$s async></script>' . "\n",
            esc_url($src),
            esc_attr(Options::agentId()),
            esc_attr(Options::localeTag()),
            $token !== null ? ' data-shopper-token="' . esc_attr($token) . '"' : ''
        );
    }
}
