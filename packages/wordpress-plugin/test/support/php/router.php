<?php

/**
 * Router for `php -S` serving a WordPress docroot made by the test harness: existing files and
 * folders are served as usual (PHP files run), every other path goes to index.php, which is what
 * Apache's WordPress rewrite rules do (pretty permalinks, /wp-json/).
 */

$chatAgentRoot = rtrim((string) $_SERVER['DOCUMENT_ROOT'], '/');
$chatAgentPath = '/' . ltrim((string) parse_url(urldecode((string) $_SERVER['REQUEST_URI']), PHP_URL_PATH), '/');

if ($chatAgentPath !== '/' && file_exists($chatAgentRoot . $chatAgentPath)) {
    if (is_dir($chatAgentRoot . $chatAgentPath) && substr($chatAgentPath, -1) !== '/') {
        header('Location: ' . $chatAgentPath . '/');
        return true;
    }
    return false;
}

$_SERVER['SCRIPT_NAME'] = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = $chatAgentRoot . '/index.php';
$_SERVER['PHP_SELF'] = '/index.php';
chdir($chatAgentRoot);
require $chatAgentRoot . '/index.php';
return true;
