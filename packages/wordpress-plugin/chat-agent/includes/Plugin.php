<?php

declare(strict_types=1);

namespace ChatAgent;

/** Wires the plugin's parts to WordPress hooks. */
final class Plugin
{
    public static function boot(): void
    {
        add_action('init', [self::class, 'loadTextdomain']);
        add_action(SyncRunner::HOOK, [SyncRunner::class, 'runBatch']);
        Deltas::register();
        RestRoutes::register();
        CouponStaging::register();
        Widget::register();
        if (is_admin()) {
            SettingsPage::register();
            AdminAjax::register();
            add_filter('plugin_action_links_' . plugin_basename(CHAT_AGENT_FILE), [self::class, 'actionLinks']);
        }
    }

    public static function loadTextdomain(): void
    {
        load_plugin_textdomain('chat-agent', false, dirname(plugin_basename(CHAT_AGENT_FILE)) . '/languages');
    }

    /**
     * @param array<int|string, string> $links
     * @return array<int|string, string>
     */
    public static function actionLinks(array $links): array
    {
        $url = admin_url('options-general.php?page=' . SettingsPage::SLUG);
        array_unshift($links, '<a href="' . esc_url($url) . '">' . esc_html__('Settings', 'chat-agent') . '</a>');
        return $links;
    }
}
