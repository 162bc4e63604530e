<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * The settings page's admin-ajax actions, each behind the nonce and manage_options:
 * chat_agent_test_connection, chat_agent_sync_now and chat_agent_sync_status (which also calls
 * spawn_cron() so a sync advances while the page is open).
 */
final class AdminAjax
{
    public const NONCE = 'chat_agent_admin';

    public static function register(): void
    {
        add_action('wp_ajax_chat_agent_test_connection', [self::class, 'testConnection']);
        add_action('wp_ajax_chat_agent_sync_now', [self::class, 'syncNow']);
        add_action('wp_ajax_chat_agent_sync_status', [self::class, 'syncStatus']);
    }

    private static function guard(): void
    {
        if (!check_ajax_referer(self::NONCE, 'nonce', false)) {
            wp_send_json(['ok' => false, 'message' => __('The page expired. Reload it and try again.', 'chat-agent')], 403);
        }
        if (!current_user_can(SettingsPage::CAPABILITY)) {
            wp_send_json(['ok' => false, 'message' => __('Sorry, you are not allowed to do that.', 'chat-agent')], 403);
        }
    }

    public static function testConnection(): void
    {
        self::guard();
        $url = isset($_POST['service_url']) ? SettingsPage::sanitizeUrl(wp_unslash((string) $_POST['service_url'])) : '';
        $token = isset($_POST['api_token']) ? trim(wp_unslash((string) $_POST['api_token'])) : '';
        $url = $url !== '' ? $url : Options::serviceUrl();
        $token = $token !== '' ? $token : Options::apiToken();
        [$data, $problem] = self::connect($url, $token);
        if ($data === null) {
            wp_send_json(['ok' => false, 'message' => $problem]);
        }
        update_option(Options::SERVICE_URL, $url);
        update_option(Options::API_TOKEN, $token);
        Options::saveHandshake($data, $token);
        $agents = self::agentsOf($data);
        $ids = array_column($agents, 'id');
        if (!in_array(Options::agentId(), $ids, true) && count($ids) === 1) {
            update_option(Options::AGENT_ID, $ids[0]);
        }
        wp_send_json([
            'ok' => true,
            'message' => SettingsPage::connectedMessage($data),
            'agents' => $agents,
            'agent_id' => Options::agentId(),
        ]);
    }

    /**
     * The handshake with `$url` and `$token`: its answer, or null and the reason in words.
     *
     * @return array{0: array<string, mixed>|null, 1: string}
     */
    public static function connect(string $url, string $token): array
    {
        try {
            $data = (new ServiceClient($url, $token))->handshake();
        } catch (ServiceError $error) {
            return [null, self::explain($error)];
        }
        if (!is_string($data['token']['shopper_signing_secret'] ?? null) || !is_array($data['agents'] ?? null)) {
            return [null, __('The service answered, but not with a handshake. Check the service URL.', 'chat-agent')];
        }
        return [$data, ''];
    }

    /**
     * The handshake's agents as id and name.
     *
     * @param array<string, mixed> $data
     * @return list<array{id: string, name: string}>
     */
    public static function agentsOf(array $data): array
    {
        $agents = [];
        foreach (is_array($data['agents'] ?? null) ? $data['agents'] : [] as $agent) {
            $agents[] = ['id' => (string) ($agent['id'] ?? ''), 'name' => (string) ($agent['name'] ?? '')];
        }
        return $agents;
    }

    /** The reason a handshake failed, in words. */
    public static function explain(ServiceError $error): string
    {
        return match (true) {
            $error->errorCode === 'not_configured' => $error->getMessage(),
            $error->status === 0 => sprintf(
                /* translators: %s: the technical reason */
                __('The service is unreachable: %s', 'chat-agent'),
                $error->getMessage()
            ),
            $error->status === 401 => __('The service refused the API token: it is wrong or revoked. Paste the plaintext token again.', 'chat-agent'),
            $error->status === 403 => __('The API token does not have the wp:integration ability. Issue a token with that ability.', 'chat-agent'),
            $error->status === 404 => __('No chat agent service answers at this URL (404). Check the service URL.', 'chat-agent'),
            default => sprintf(
                /* translators: %s: the technical reason */
                __('The connection failed: %s', 'chat-agent'),
                $error->getMessage()
            ),
        };
    }

    public static function syncNow(): void
    {
        self::guard();
        if (!Options::isConfigured()) {
            wp_send_json(array_merge(SyncRunner::status(), [
                'ok' => false,
                'message' => __('Save the service URL and token, run Test connection and choose an agent first.', 'chat-agent'),
            ]));
        }
        SyncRunner::start();
        spawn_cron();
        self::sendStatus();
    }

    public static function syncStatus(): void
    {
        self::guard();
        if ((Options::syncState()['status'] ?? '') === 'running') {
            SyncRunner::ensureScheduled();
            spawn_cron();
        }
        self::sendStatus();
    }

    private static function sendStatus(): void
    {
        $status = SyncRunner::status();
        $status['ok'] = true;
        $status['message'] = SettingsPage::statusMessage($status);
        wp_send_json($status);
    }
}
