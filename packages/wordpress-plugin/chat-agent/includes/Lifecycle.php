<?php

declare(strict_types=1);

namespace ChatAgent;

/** Activation and deactivation; uninstall.php removes everything the plugin stored. */
final class Lifecycle
{
    public static function activate(): void
    {
        add_option(Options::WIDGET_ENABLED, '1');
        add_option(Options::WIDGET_EXCLUDE, '');
        add_option(Options::SYNC_STATE, [], '', false);
    }

    /** Stops every schedule; a sync in progress is marked so "Sync now" resumes it later. */
    public static function deactivate(): void
    {
        wp_clear_scheduled_hook(SyncRunner::HOOK);
        wp_clear_scheduled_hook(Deltas::HOOK);
        $state = Options::syncState();
        if (($state['status'] ?? '') === 'running') {
            $state['status'] = 'failed';
            $state['last_error'] = __('The plugin was deactivated during the sync; run Sync now to resume it.', 'chat-agent');
            Options::saveSyncState($state);
        }
    }

    /** Removes the plugin's options, transients and scheduled events (called by uninstall.php). */
    public static function uninstall(): void
    {
        global $wpdb;
        wp_clear_scheduled_hook(SyncRunner::HOOK);
        wp_clear_scheduled_hook(Deltas::HOOK);
        $like = [
            $wpdb->esc_like('chat_agent_') . '%',
            $wpdb->esc_like('_transient_chat_agent_') . '%',
            $wpdb->esc_like('_transient_timeout_chat_agent_') . '%',
            $wpdb->esc_like('_site_transient_chat_agent_') . '%',
            $wpdb->esc_like('_site_transient_timeout_chat_agent_') . '%',
        ];
        foreach ($like as $pattern) {
            $names = $wpdb->get_col($wpdb->prepare(
                "SELECT option_name FROM {$wpdb->options} WHERE option_name LIKE %s",
                $pattern
            ));
            foreach ($names as $name) {
                delete_option($name);
            }
        }
        if (is_multisite()) {
            $names = $wpdb->get_col($wpdb->prepare(
                "SELECT meta_key FROM {$wpdb->sitemeta} WHERE meta_key LIKE %s",
                $wpdb->esc_like('chat_agent_') . '%'
            ));
            foreach ($names as $name) {
                delete_site_option($name);
            }
        }
        wp_cache_flush();
    }
}
