<?php

declare(strict_types=1);

namespace ChatAgent\Tests;

use PHPUnit\Framework\TestCase;

/** languages/chat-agent.pot is complete: regenerating it from the sources changes nothing. */
final class TranslationTemplateTest extends TestCase
{
    public function testThePotFileIsUpToDate(): void
    {
        $package = dirname(__DIR__);
        $fresh = tempnam(sys_get_temp_dir(), 'pot');
        self::assertIsString($fresh);
        try {
            $command = escapeshellarg(PHP_BINARY) . ' ' . escapeshellarg($package . '/bin/make-pot.php')
                . ' ' . escapeshellarg($fresh);
            exec($command, $output, $status);
            self::assertSame(0, $status, implode("\n", $output));
            self::assertSame(
                file_get_contents($fresh),
                file_get_contents($package . '/chat-agent/languages/chat-agent.pot'),
                'Run php bin/make-pot.php and commit the .pot'
            );
        } finally {
            unlink($fresh);
        }
    }

    public function testEveryTranslatedStringUsesTheTextDomain(): void
    {
        $files = new \RecursiveIteratorIterator(new \RecursiveDirectoryIterator(dirname(__DIR__) . '/chat-agent'));
        $wrong = [];
        foreach ($files as $file) {
            if ($file->getExtension() !== 'php') {
                continue;
            }
            $source = (string) file_get_contents($file->getPathname());
            // A one-line call whose last argument is not 'chat-agent'.
            preg_match_all("/\\b(?:__|_e|esc_html__|esc_html_e|esc_attr__|esc_attr_e)\\(('[^']*'),\\s*'([^']*)'\\)/", $source, $calls, PREG_SET_ORDER);
            foreach ($calls as $call) {
                if ($call[2] !== 'chat-agent') {
                    $wrong[] = $file->getFilename() . ': ' . $call[0];
                }
            }
        }
        self::assertSame([], $wrong);
    }
}
