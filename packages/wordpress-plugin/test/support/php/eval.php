<?php

/**
 * Runs PHP code inside a harness WordPress from the command line: loads wp-load.php of the
 * docroot, evaluates the code read from standard input (a function body; its `return` value is
 * printed as one JSON line). Used by the tests to create posts fast, read users and options.
 *
 * Usage: php eval.php <docroot> < code.php
 */

if (PHP_SAPI !== 'cli') {
    exit(1);
}

$chatAgentDocroot = rtrim($argv[1] ?? '', '/');
$chatAgentCode = stream_get_contents(STDIN);
$_SERVER['HTTP_HOST'] = $_SERVER['HTTP_HOST'] ?? '127.0.0.1';
$_SERVER['REQUEST_METHOD'] = 'GET';
require $chatAgentDocroot . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';
require_once ABSPATH . 'wp-admin/includes/user.php';
require_once ABSPATH . 'wp-admin/includes/post.php';
require_once ABSPATH . 'wp-admin/includes/file.php';

$chatAgentFunction = eval('return static function () {' . $chatAgentCode . "\n};");
$chatAgentValue = $chatAgentFunction();
echo "\n", '@@RESULT@@', json_encode($chatAgentValue), "\n";
