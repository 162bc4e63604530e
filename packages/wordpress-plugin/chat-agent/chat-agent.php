<?php

/**
 * Plugin Name:       Chat Agent
 * Plugin URI:        https://github.com/
 * Description:       Connects the site to a chat agent service: content sync, the chat widget, order lookups, leads and coupons.
 * Version:           0.1.0
 * Requires at least: 6.0
 * Requires PHP:      8.1
 * Author:            Chat Agent contributors
 * License:           GPL-2.0-or-later
 * License URI:       https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:       chat-agent
 * Domain Path:       /languages
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
    exit;
}

define('CHAT_AGENT_VERSION', '0.1.0');
define('CHAT_AGENT_FILE', __FILE__);

require_once __DIR__ . '/includes/autoload.php';

register_activation_hook(__FILE__, ['ChatAgent\\Lifecycle', 'activate']);
register_deactivation_hook(__FILE__, ['ChatAgent\\Lifecycle', 'deactivate']);

ChatAgent\Plugin::boot();
