<?php

/**
 * PHPUnit bootstrap: loads the plugin's autoloader. The unit-tested classes are pure PHP and need
 * no WordPress functions.
 */

declare(strict_types=1);

require_once dirname(__DIR__) . '/chat-agent/includes/autoload.php';
require_once __DIR__ . '/wp-stubs.php';

/** The repository root (for packages/contract/fixtures). */
function chat_agent_repo_root(): string
{
    return dirname(__DIR__, 3);
}
