<?php

declare(strict_types=1);

namespace ChatAgent;

/** The plugin's options (all `chat_agent_*`) and what is derived from them. */
final class Options
{
    public const SERVICE_URL = 'chat_agent_service_url';
    public const API_TOKEN = 'chat_agent_api_token';
    public const AGENT_ID = 'chat_agent_agent_id';
    public const WIDGET_ENABLED = 'chat_agent_widget_enabled';
    public const WIDGET_EXCLUDE = 'chat_agent_widget_exclude';
    public const HANDSHAKE = 'chat_agent_handshake';
    public const SYNC_STATE = 'chat_agent_sync_state';
    public const DELTA_QUEUE = 'chat_agent_delta_queue';

    public static function serviceUrl(): string
    {
        return untrailingslashit((string) get_option(self::SERVICE_URL, ''));
    }

    public static function apiToken(): string
    {
        return (string) get_option(self::API_TOKEN, '');
    }

    public static function agentId(): string
    {
        return (string) get_option(self::AGENT_ID, '');
    }

    public static function widgetEnabled(): bool
    {
        return get_option(self::WIDGET_ENABLED, '0') === '1';
    }

    /** @return array<string, mixed> */
    public static function handshake(): array
    {
        $value = get_option(self::HANDSHAKE, []);
        return is_array($value) ? $value : [];
    }

    /**
     * Stores a handshake's answer with the SHA-256 of the token it was made with, so a secret
     * from another token is never used (signingSecret()).
     *
     * @param array<string, mixed> $data
     */
    public static function saveHandshake(array $data, string $token): void
    {
        $data['token_sha256'] = hash('sha256', $token);
        update_option(self::HANDSHAKE, $data, false);
    }

    /**
     * The shopper signing secret from the last handshake; '' before one, and '' when the saved
     * API token is not the one that handshake was made with (the secret belongs to each token:
     * a replaced token's would sign shopper tokens and verify service calls that no longer
     * match). A handshake stored before the hash was kept has none and is taken as it is.
     */
    public static function signingSecret(): string
    {
        $handshake = self::handshake();
        if (array_key_exists('token_sha256', $handshake)) {
            $madeWith = $handshake['token_sha256'];
            if (!is_string($madeWith) || !hash_equals($madeWith, hash('sha256', self::apiToken()))) {
                return '';
            }
        }
        $secret = $handshake['token']['shopper_signing_secret'] ?? '';
        return is_string($secret) ? $secret : '';
    }

    /** Ready to sync: a service URL, a token and a chosen agent. */
    public static function isConfigured(): bool
    {
        return self::serviceUrl() !== '' && self::apiToken() !== '' && self::agentId() !== '';
    }

    public static function commerceActive(): bool
    {
        return class_exists('WooCommerce');
    }

    public static function siteUrl(): string
    {
        return untrailingslashit(home_url('/'));
    }

    /** @return array<string, mixed> */
    public static function syncState(): array
    {
        $value = get_option(self::SYNC_STATE, []);
        return is_array($value) ? $value : [];
    }

    /** @param array<string, mixed> $state */
    public static function saveSyncState(array $state): void
    {
        update_option(self::SYNC_STATE, $state, false);
    }

    /** Records a failure (sync batch or delta) for the settings page; the newest 50 are kept. */
    public static function addFailure(string $what, string $message): void
    {
        $state = self::syncState();
        $failures = is_array($state['failures'] ?? null) ? $state['failures'] : [];
        $failures[] = ['time' => time(), 'what' => $what, 'message' => $message];
        $state['failures'] = array_slice($failures, -50);
        self::saveSyncState($state);
    }

    /** The site's locale as a BCP-47 tag, `en_US` → `en-US`. */
    public static function localeTag(): string
    {
        return str_replace('_', '-', (string) get_locale());
    }
}
