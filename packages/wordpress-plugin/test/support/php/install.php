<?php

// phpcs:disable PSR1.Files.SideEffects

/**
 * Installs WordPress in a docroot the test harness prepared (wp-config.php written already):
 * creates the database, runs wp_install() with the given admin, sets pretty permalinks and
 * activates the given plugins. Prints one JSON line: {"ok": true, "admin_id": N}.
 *
 * Usage: php install.php <docroot> <json options>
 *   options: {db_name, title, admin_user, admin_password, admin_email, plugins: [basename…]}
 */

if (PHP_SAPI !== 'cli') {
    exit(1);
}

$chatAgentDocroot = rtrim($argv[1] ?? '', '/');
$chatAgentOptions = json_decode($argv[2] ?? '{}', true, 512, JSON_THROW_ON_ERROR);

// The database first: wp-load.php would stop at "Error establishing a database connection".
mysqli_report(MYSQLI_REPORT_ERROR | MYSQLI_REPORT_STRICT);
$chatAgentDb = new mysqli('127.0.0.1', 'root', '', '', 3306);
$chatAgentName = preg_replace('/[^a-z0-9_]/', '', (string) $chatAgentOptions['db_name']);
$chatAgentDb->query(
    "CREATE DATABASE IF NOT EXISTS `{$chatAgentName}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
);
$chatAgentDb->close();

define('WP_INSTALLING', true);
require $chatAgentDocroot . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';

$chatAgentResult = wp_install(
    (string) $chatAgentOptions['title'],
    (string) $chatAgentOptions['admin_user'],
    (string) $chatAgentOptions['admin_email'],
    false,
    '',
    wp_slash((string) $chatAgentOptions['admin_password'])
);
update_option('permalink_structure', '/%postname%/');
flush_rewrite_rules(false);

foreach ($chatAgentOptions['plugins'] ?? [] as $chatAgentPlugin) {
    $chatAgentActivated = activate_plugin((string) $chatAgentPlugin);
    if (is_wp_error($chatAgentActivated)) {
        fwrite(STDERR, 'activate ' . $chatAgentPlugin . ': ' . $chatAgentActivated->get_error_message() . "\n");
        exit(1);
    }
}

echo json_encode(['ok' => true, 'admin_id' => (int) $chatAgentResult['user_id']]), "\n";
