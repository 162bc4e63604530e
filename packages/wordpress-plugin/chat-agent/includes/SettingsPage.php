<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * Settings → Chat agent (options-general.php?page=chat-agent), capability manage_options: the
 * Settings API form (service URL, API token never echoed back, agent, widget on/off and
 * exclusions), Test connection, Sync now with its progress bar, and the failures list.
 */
final class SettingsPage
{
    public const SLUG = 'chat-agent';
    public const GROUP = 'chat_agent';
    public const CAPABILITY = 'manage_options';

    public static function register(): void
    {
        add_action('admin_menu', [self::class, 'menu']);
        add_action('admin_init', [self::class, 'settings']);
        add_action('admin_enqueue_scripts', [self::class, 'assets']);
        add_action('update_option_' . Options::SERVICE_URL, [self::class, 'urlSaved']);
        add_action('update_option_' . Options::API_TOKEN, [self::class, 'tokenSaved']);
    }

    /** Whether this request is the settings form being saved. */
    private static function fromForm(): bool
    {
        return isset($_POST['option_page']) && $_POST['option_page'] === self::GROUP;
    }

    /**
     * A new service URL saved from the form connects again, unless the form also replaces the
     * token: that update comes next and connects with both.
     */
    public static function urlSaved(): void
    {
        if (!self::fromForm()) {
            return;
        }
        $posted = isset($_POST[Options::API_TOKEN]) ? self::sanitizeToken(wp_unslash((string) $_POST[Options::API_TOKEN])) : '';
        if ($posted !== Options::apiToken()) {
            return;
        }
        self::reconnect();
    }

    /** A new API token saved from the form connects at once (Save is enough; Test connection is optional). */
    public static function tokenSaved(): void
    {
        if (self::fromForm()) {
            self::reconnect();
        }
    }

    /**
     * The handshake with the saved URL and token, as Test connection makes it: on success the
     * answer is stored (the new token's signing secret, the agents; the only agent is chosen)
     * and the page says which workspace; on failure the page says why, and the old handshake's
     * secret (it belongs to the old token) is no longer used.
     */
    private static function reconnect(): void
    {
        if (Options::serviceUrl() === '' || Options::apiToken() === '') {
            return;
        }
        [$data, $problem] = AdminAjax::connect(Options::serviceUrl(), Options::apiToken());
        if ($data === null) {
            // The last handshake stays for its agent list, bound to the token it was made with
            // (one stored before that binding is bound to none), so its secret is not used.
            $last = Options::handshake();
            if ($last !== [] && !array_key_exists('token_sha256', $last)) {
                $last['token_sha256'] = '';
                update_option(Options::HANDSHAKE, $last, false);
            }
            add_settings_error(Options::API_TOKEN, 'chat-agent-connect', $problem);
            return;
        }
        Options::saveHandshake($data, Options::apiToken());
        $ids = array_column(AdminAjax::agentsOf($data), 'id');
        $posted = isset($_POST[Options::AGENT_ID]) ? self::sanitizeAgent(wp_unslash((string) $_POST[Options::AGENT_ID])) : '';
        if (!in_array($posted, $ids, true) && count($ids) === 1) {
            // The agent's own update comes after this one and would save the form's choice.
            $_POST[Options::AGENT_ID] = $ids[0];
        }
        add_settings_error(Options::API_TOKEN, 'chat-agent-connected', self::connectedMessage($data), 'success');
    }

    public static function menu(): void
    {
        add_options_page(
            __('Chat agent', 'chat-agent'),
            __('Chat agent', 'chat-agent'),
            self::CAPABILITY,
            self::SLUG,
            [self::class, 'render']
        );
    }

    public static function settings(): void
    {
        register_setting(self::GROUP, Options::SERVICE_URL, [
            'type' => 'string',
            'sanitize_callback' => [self::class, 'sanitizeUrl'],
            'default' => '',
        ]);
        register_setting(self::GROUP, Options::API_TOKEN, [
            'type' => 'string',
            'sanitize_callback' => [self::class, 'sanitizeToken'],
            'default' => '',
        ]);
        register_setting(self::GROUP, Options::AGENT_ID, [
            'type' => 'string',
            'sanitize_callback' => [self::class, 'sanitizeAgent'],
            'default' => '',
        ]);
        register_setting(self::GROUP, Options::WIDGET_ENABLED, [
            'type' => 'string',
            'sanitize_callback' => static fn ($value) => $value === '1' || $value === 1 || $value === true ? '1' : '0',
            'default' => '1',
        ]);
        register_setting(self::GROUP, Options::WIDGET_EXCLUDE, [
            'type' => 'string',
            'sanitize_callback' => static fn ($value) => sanitize_textarea_field((string) $value),
            'default' => '',
        ]);
    }

    /** An http(s) URL without a trailing slash, or '' (with a settings error). */
    public static function sanitizeUrl(mixed $value): string
    {
        $url = untrailingslashit(trim((string) $value));
        if ($url === '') {
            return '';
        }
        $clean = esc_url_raw($url, ['http', 'https']);
        if ($clean === '' || wp_parse_url($clean, PHP_URL_HOST) === null) {
            add_settings_error(Options::SERVICE_URL, 'chat-agent-url', __('The service URL must be an http(s) address.', 'chat-agent'));
            return Options::serviceUrl();
        }
        return untrailingslashit($clean);
    }

    /** An empty submit of the settings form keeps the saved token (it is never shown again). */
    public static function sanitizeToken(mixed $value): string
    {
        $token = trim((string) $value);
        $fromForm = isset($_POST['option_page']) && $_POST['option_page'] === self::GROUP;
        if ($token === '' && $fromForm) {
            return Options::apiToken();
        }
        return preg_replace('/[^\x21-\x7E]/', '', $token) ?? '';
    }

    public static function sanitizeAgent(mixed $value): string
    {
        $agent = trim((string) $value);
        return preg_match('/^[A-Za-z0-9._:-]{1,64}$/D', $agent) === 1 ? $agent : '';
    }

    public static function assets(string $hook): void
    {
        if ($hook !== 'settings_page_' . self::SLUG) {
            return;
        }
        wp_enqueue_style('chat-agent-admin', plugins_url('assets/admin.css', CHAT_AGENT_FILE), [], CHAT_AGENT_VERSION);
        wp_enqueue_script('chat-agent-admin', plugins_url('assets/admin.js', CHAT_AGENT_FILE), [], CHAT_AGENT_VERSION, true);
        wp_localize_script('chat-agent-admin', 'chatAgentAdmin', [
            'ajaxUrl' => admin_url('admin-ajax.php'),
            'nonce' => wp_create_nonce(AdminAjax::NONCE),
            'i18n' => [
                'testing' => __('Testing the connection…', 'chat-agent'),
                'starting' => __('Starting the sync…', 'chat-agent'),
                'chooseAgent' => __('Choose an agent', 'chat-agent'),
                'requestFailed' => __('The request failed. Reload the page and try again.', 'chat-agent'),
            ],
        ]);
    }

    public static function render(): void
    {
        if (!current_user_can(self::CAPABILITY)) {
            wp_die(esc_html__('Sorry, you are not allowed to manage these settings.', 'chat-agent'), 403);
        }
        $handshake = Options::handshake();
        $agents = is_array($handshake['agents'] ?? null) ? $handshake['agents'] : [];
        $status = SyncRunner::status();
        $hasToken = Options::apiToken() !== '';
        $excluded = (string) get_option(Options::WIDGET_EXCLUDE, '');
        echo '<div class="wrap chat-agent-settings">';
        // WordPress prints the settings notices on Settings pages itself (options-head.php).
        echo '<h1>' . esc_html__('Chat agent', 'chat-agent') . '</h1>';
        echo '<form method="post" action="' . esc_url(admin_url('options.php')) . '">';
        settings_fields(self::GROUP);
        echo '<table class="form-table" role="presentation"><tbody>';

        echo '<tr><th scope="row"><label for="chat-agent-service-url">' . esc_html__('Service URL', 'chat-agent') . '</label></th><td>';
        printf(
            '<input type="url" class="regular-text" id="chat-agent-service-url" name="%1$s" value="%2$s" placeholder="https://chat.example.net">',
            esc_attr(Options::SERVICE_URL),
            esc_attr(Options::serviceUrl())
        );
        echo '<p class="description">' . esc_html__('The address of the chat agent service.', 'chat-agent') . '</p></td></tr>';

        echo '<tr><th scope="row"><label for="chat-agent-api-token">' . esc_html__('API token', 'chat-agent') . '</label></th><td>';
        printf(
            '<input type="password" class="regular-text" id="chat-agent-api-token" name="%s" value="" autocomplete="new-password">',
            esc_attr(Options::API_TOKEN)
        );
        echo '<p class="description" id="chat-agent-token-state">';
        echo $hasToken
            ? esc_html__('A token is saved. Leave the field empty to keep it, or paste a new one to replace it.', 'chat-agent')
            : esc_html__('No token is saved yet. Paste a workspace API token with the wp:integration ability.', 'chat-agent');
        echo '</p><p>';
        printf('<button type="button" class="button" id="chat-agent-test-connection">%s</button> ', esc_html__('Test connection', 'chat-agent'));
        echo '<span id="chat-agent-connection-result" role="status" aria-live="polite">';
        if (isset($handshake['workspace']['name'])) {
            echo esc_html(
                Options::signingSecret() !== ''
                    ? self::connectedMessage($handshake)
                    : __('The saved token is not the one last connected. Run Test connection.', 'chat-agent')
            );
        }
        echo '</span></p></td></tr>';

        echo '<tr><th scope="row"><label for="chat-agent-agent">' . esc_html__('Agent', 'chat-agent') . '</label></th><td>';
        printf('<select id="chat-agent-agent" name="%s">', esc_attr(Options::AGENT_ID));
        echo '<option value="">' . esc_html__('Choose an agent', 'chat-agent') . '</option>';
        foreach ($agents as $agent) {
            $id = (string) ($agent['id'] ?? '');
            printf(
                '<option value="%1$s"%2$s>%3$s</option>',
                esc_attr($id),
                selected($id, Options::agentId(), false),
                esc_html((string) ($agent['name'] ?? $id))
            );
        }
        echo '</select><p class="description">' . esc_html__('Run Test connection to list the workspace\'s agents.', 'chat-agent') . '</p></td></tr>';

        echo '<tr><th scope="row">' . esc_html__('Widget', 'chat-agent') . '</th><td><label for="chat-agent-widget-enabled">';
        printf(
            '<input type="hidden" name="%1$s" value="0"><input type="checkbox" id="chat-agent-widget-enabled" name="%1$s" value="1"%2$s> ',
            esc_attr(Options::WIDGET_ENABLED),
            checked(Options::widgetEnabled(), true, false)
        );
        echo esc_html__('Show the chat widget on the site\'s pages', 'chat-agent') . '</label></td></tr>';

        echo '<tr><th scope="row"><label for="chat-agent-widget-exclude">' . esc_html__('Not on these pages', 'chat-agent') . '</label></th><td>';
        printf(
            '<textarea id="chat-agent-widget-exclude" name="%1$s" rows="4" class="large-text code">%2$s</textarea>',
            esc_attr(Options::WIDGET_EXCLUDE),
            esc_textarea($excluded)
        );
        echo '<p class="description">'
            . esc_html__('One per line: a path such as /checkout/ (end it with * for every page under it) or a post ID.', 'chat-agent')
            . '</p></td></tr>';
        echo '</tbody></table>';
        submit_button();
        echo '</form>';

        self::renderSync($status);
        echo '</div>';
    }

    /** @param array<string, mixed> $status */
    private static function renderSync(array $status): void
    {
        echo '<h2>' . esc_html__('Content sync', 'chat-agent') . '</h2>';
        echo '<p>' . esc_html__(
            'Sends the published posts and pages (and products and coupons when WooCommerce is active) to the service. Changes are sent as they happen.',
            'chat-agent'
        ) . '</p>';
        printf('<p><button type="button" class="button button-secondary" id="chat-agent-sync-now">%s</button></p>', esc_html__('Sync now', 'chat-agent'));
        $percent = (int) $status['percent'];
        printf(
            '<div id="chat-agent-sync-progress" class="chat-agent-progress" role="progressbar" aria-valuemin="0" aria-valuemax="100"'
            . ' aria-valuenow="%1$d" aria-label="%2$s" data-status="%3$s"><span class="chat-agent-progress-bar" style="width:%1$d%%"></span></div>',
            $percent,
            esc_attr__('Sync progress', 'chat-agent'),
            esc_attr((string) $status['status'])
        );
        echo '<p id="chat-agent-sync-status" role="status" aria-live="polite">' . esc_html(self::statusMessage($status)) . '</p>';
        echo '<h3>' . esc_html__('Failures', 'chat-agent') . '</h3>';
        printf(
            '<p id="chat-agent-sync-no-failures"%1$s>%2$s</p>',
            $status['failures'] === [] ? '' : ' hidden',
            esc_html__('No failures.', 'chat-agent')
        );
        echo '<ul id="chat-agent-sync-failures">';
        foreach ($status['failures'] as $failure) {
            printf(
                '<li><time>%1$s</time> <strong>%2$s</strong>: %3$s</li>',
                esc_html($failure['time']),
                esc_html($failure['what']),
                esc_html($failure['message'])
            );
        }
        echo '</ul>';
    }

    /** @param array<string, mixed> $handshake */
    public static function connectedMessage(array $handshake): string
    {
        $count = is_array($handshake['agents'] ?? null) ? count($handshake['agents']) : 0;
        return sprintf(
            /* translators: 1: workspace name, 2: number of agents */
            _n('Connected to workspace %1$s. %2$d agent.', 'Connected to workspace %1$s. %2$d agents.', $count, 'chat-agent'),
            (string) ($handshake['workspace']['name'] ?? ''),
            $count
        );
    }

    /** The sync status in words. @param array<string, mixed> $status */
    public static function statusMessage(array $status): string
    {
        return match ($status['status']) {
            'running' => sprintf(
                /* translators: 1: items sent, 2: items in total */
                __('Syncing: %1$d of %2$d sent…', 'chat-agent'),
                $status['sent'],
                $status['total']
            ),
            'done' => sprintf(
                /* translators: 1: items sent, 2: re-indexed, 3: unchanged, 4: removed */
                __('Done: %1$d sent, %2$d queued for indexing, %3$d unchanged, %4$d removed.', 'chat-agent'),
                $status['sent'],
                $status['queued'],
                $status['skipped_unchanged'],
                $status['deleted']
            ),
            'failed' => sprintf(
                /* translators: %s: the reason */
                __('Failed: %s Run Sync now to resume.', 'chat-agent'),
                $status['last_error']
            ),
            default => __('Not synced yet.', 'chat-agent'),
        };
    }
}
