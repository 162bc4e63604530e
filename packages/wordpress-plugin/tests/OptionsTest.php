<?php

declare(strict_types=1);

namespace ChatAgent\Tests;

use ChatAgent\Options;
use PHPUnit\Framework\TestCase;

/**
 * The shopper signing secret belongs to the token the handshake was made with: once another
 * token is saved, the old secret signs nothing and verifies nothing.
 */
final class OptionsTest extends TestCase
{
    protected function setUp(): void
    {
        $GLOBALS['chat_agent_test_options'] = [];
    }

    /** @return array<string, mixed> */
    private static function handshake(string $secret): array
    {
        return ['token' => ['shopper_signing_secret' => $secret], 'agents' => [], 'workspace' => ['name' => 'Acme']];
    }

    public function testTheSecretOfTheSavedTokensHandshake(): void
    {
        update_option(Options::API_TOKEN, 'svc_token_one');
        Options::saveHandshake(self::handshake('secret-one'), 'svc_token_one');
        self::assertSame('secret-one', Options::signingSecret());
        self::assertSame(hash('sha256', 'svc_token_one'), Options::handshake()['token_sha256']);
    }

    public function testNoSecretOnceAnotherTokenIsSaved(): void
    {
        update_option(Options::API_TOKEN, 'svc_token_one');
        Options::saveHandshake(self::handshake('secret-one'), 'svc_token_one');
        update_option(Options::API_TOKEN, 'svc_token_two');
        self::assertSame('', Options::signingSecret());
        // A token that differs in one character, or an empty one, is another token.
        update_option(Options::API_TOKEN, 'svc_token_onf');
        self::assertSame('', Options::signingSecret());
        update_option(Options::API_TOKEN, '');
        self::assertSame('', Options::signingSecret());
        update_option(Options::API_TOKEN, 'svc_token_one');
        self::assertSame('secret-one', Options::signingSecret());
    }

    public function testAHandshakeStoredBeforeTheHashWasKeptIsTakenAsItIs(): void
    {
        update_option(Options::API_TOKEN, 'svc_token_one');
        update_option(Options::HANDSHAKE, self::handshake('secret-legacy'));
        self::assertSame('secret-legacy', Options::signingSecret());
    }

    public function testNoHandshakeOrAMalformedOneHasNoSecret(): void
    {
        update_option(Options::API_TOKEN, 'svc_token_one');
        self::assertSame('', Options::signingSecret());
        update_option(Options::HANDSHAKE, 'not an array');
        self::assertSame('', Options::signingSecret());
        update_option(Options::HANDSHAKE, ['token' => ['shopper_signing_secret' => 42], 'token_sha256' => hash('sha256', 'svc_token_one')]);
        self::assertSame('', Options::signingSecret());
        update_option(Options::HANDSHAKE, ['token' => ['shopper_signing_secret' => 's'], 'token_sha256' => ['not', 'a', 'string']]);
        self::assertSame('', Options::signingSecret(), 'a hash that is no string matches no token');
    }
}
