<?php

/**
 * Runs when the plugin is deleted from Plugins: removes every chat_agent_* option, transient and
 * scheduled event. Users created from leads stay: they belong to the site.
 */

declare(strict_types=1);

if (!defined('WP_UNINSTALL_PLUGIN')) {
    exit;
}

require_once __DIR__ . '/includes/autoload.php';

ChatAgent\Lifecycle::uninstall();
