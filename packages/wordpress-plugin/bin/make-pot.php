<?php

/**
 * Writes chat-agent/languages/chat-agent.pot from the plugin's PHP files: every call of __(),
 * _e(), esc_html__(), esc_html_e(), esc_attr__(), esc_attr_e() and _n() with the text domain
 * `chat-agent`, with its translators comment and references. No WP-CLI needed.
 *
 * Usage: php bin/make-pot.php [output file]   (default: chat-agent/languages/chat-agent.pot)
 */

declare(strict_types=1);

$pluginDir = dirname(__DIR__) . '/chat-agent';
$entries = [];
$files = new RecursiveIteratorIterator(new RecursiveDirectoryIterator($pluginDir, FilesystemIterator::SKIP_DOTS));
$paths = [];
foreach ($files as $file) {
    if ($file->getExtension() === 'php') {
        $paths[] = $file->getPathname();
    }
}
sort($paths);
foreach ($paths as $path) {
    $tokens = token_get_all((string) file_get_contents($path));
    $relative = substr($path, strlen($pluginDir) + 1);
    $comment = '';
    $count = count($tokens);
    for ($i = 0; $i < $count; $i++) {
        $token = $tokens[$i];
        if (is_array($token) && $token[0] === T_COMMENT && str_contains($token[1], 'translators:')) {
            $comment = trim(preg_replace('#^/\*+|\*+/$|^//#', '', $token[1]) ?? '');
            continue;
        }
        if (!is_array($token) || $token[0] !== T_STRING) {
            continue;
        }
        $function = $token[1];
        if (!in_array($function, ['__', '_e', 'esc_html__', 'esc_html_e', 'esc_attr__', 'esc_attr_e', '_n'], true)) {
            continue;
        }
        // Collect the string literal arguments of the call.
        $args = [];
        $depth = 0;
        for ($j = $i + 1; $j < $count; $j++) {
            $t = $tokens[$j];
            if ($t === '(') {
                $depth++;
            } elseif ($t === ')') {
                $depth--;
                if ($depth === 0) {
                    break;
                }
            } elseif ($depth === 1 && is_array($t) && $t[0] === T_CONSTANT_ENCAPSED_STRING) {
                $args[] = eval('return ' . $t[1] . ';');
            }
        }
        $line = $token[2];
        $domain = end($args);
        if ($domain !== 'chat-agent') {
            continue;
        }
        $key = $function === '_n' ? $args[0] . "\0" . $args[1] : $args[0];
        $entries[$key] ??= ['refs' => [], 'comment' => '', 'plural' => $function === '_n' ? $args[1] : null, 'msgid' => $args[0]];
        $entries[$key]['refs'][] = $relative . ':' . $line;
        if ($comment !== '') {
            $entries[$key]['comment'] = $comment;
        }
        $comment = '';
        $i = $j;
    }
}

// The plugin header's Name and Description are translated by WordPress too.
$main = (string) file_get_contents($pluginDir . '/chat-agent.php');
foreach (['Plugin Name', 'Description'] as $field) {
    if (preg_match('/^ \* ' . $field . ':\s*(.+)$/m', $main, $match) === 1) {
        $entries = [trim($match[1]) => [
            'refs' => ['chat-agent.php'],
            'comment' => $field . ' of the plugin',
            'plural' => null,
            'msgid' => trim($match[1]),
        ]] + $entries;
    }
}

$quote = static fn (string $text): string => '"' . addcslashes($text, "\"\\\n\t") . '"';
$out = "# Copyright (C) Chat Agent contributors\n"
    . "# This file is distributed under the GPL-2.0-or-later.\n"
    . "msgid \"\"\nmsgstr \"\"\n"
    . "\"Project-Id-Version: Chat Agent\\n\"\n"
    . "\"MIME-Version: 1.0\\n\"\n"
    . "\"Content-Type: text/plain; charset=UTF-8\\n\"\n"
    . "\"Content-Transfer-Encoding: 8bit\\n\"\n"
    . "\"X-Domain: chat-agent\\n\"\n";
foreach ($entries as $entry) {
    $out .= "\n";
    if ($entry['comment'] !== '') {
        $out .= '#. ' . $entry['comment'] . "\n";
    }
    $out .= '#: ' . implode(' ', $entry['refs']) . "\n";
    if (preg_match('/%(\d\$)?[sd]/', $entry['msgid']) === 1) {
        $out .= "#, php-format\n";
    }
    $out .= 'msgid ' . $quote($entry['msgid']) . "\n";
    if ($entry['plural'] !== null) {
        $out .= 'msgid_plural ' . $quote($entry['plural']) . "\nmsgstr[0] \"\"\nmsgstr[1] \"\"\n";
    } else {
        $out .= "msgstr \"\"\n";
    }
}
$target = $argv[1] ?? $pluginDir . '/languages/chat-agent.pot';
file_put_contents($target, $out);
echo count($entries), ' strings written to ', $target, "\n";
