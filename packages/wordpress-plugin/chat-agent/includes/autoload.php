<?php

/**
 * The plugin's autoloader: ChatAgent\Foo is includes/Foo.php. No Composer at runtime.
 */

declare(strict_types=1);

spl_autoload_register(static function (string $class): void {
    $prefix = 'ChatAgent\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $relative = str_replace('\\', '/', substr($class, strlen($prefix)));
    $file = __DIR__ . '/' . $relative . '.php';
    if (is_file($file)) {
        require $file;
    }
});
