<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * Calls the service's /api/v1/wp/* routes with wp_remote_post: the bearer token on every call, the
 * HMAC signature (keyed by the token plaintext) on every mutating call, 30 s timeout, retries on
 * 429 (Retry-After) and 5xx. Answers `{data}` or throws ServiceError with the reason in words.
 */
final class ServiceClient
{
    public const TIMEOUT = 30;

    /** @var callable(int): void */
    private $sleep;

    /** @param (callable(int): void)|null $sleep how to wait between retries (tests pass a recorder) */
    public function __construct(
        private string $serviceUrl,
        private string $apiToken,
        private string $pluginVersion = CHAT_AGENT_VERSION,
        ?callable $sleep = null,
    ) {
        $this->sleep = $sleep ?? static function (int $seconds): void {
            sleep($seconds);
        };
    }

    public static function fromOptions(): self
    {
        return new self(Options::serviceUrl(), Options::apiToken());
    }

    /** An absolute http(s) URL with a host (the service may be self-hosted on a private network). */
    public static function isHttpUrl(string $url): bool
    {
        $scheme = strtolower((string) wp_parse_url($url, PHP_URL_SCHEME));
        return in_array($scheme, ['http', 'https'], true) && (string) wp_parse_url($url, PHP_URL_HOST) !== '';
    }

    /** @return array<string, mixed> the handshake's `data` */
    public function handshake(): array
    {
        return $this->post('/api/v1/wp/handshake', [
            'site_url' => Options::siteUrl(),
            'plugin_version' => $this->pluginVersion,
            'commerce_active' => Options::commerceActive(),
            'cms_version' => (string) get_bloginfo('version'),
        ], false);
    }

    /**
     * A signed call with the common fields (agent_id, site_url, plugin_version) added.
     *
     * @param array<string, mixed> $fields
     * @return array<string, mixed>
     */
    public function send(string $route, string $agentId, array $fields): array
    {
        $body = array_merge([
            'agent_id' => $agentId,
            'site_url' => Options::siteUrl(),
            'plugin_version' => $this->pluginVersion,
        ], $fields);
        return $this->post('/api/v1/wp/' . $route, $body, true);
    }

    /**
     * @param array<string, mixed> $body
     * @return array<string, mixed>
     */
    public function post(string $path, array $body, bool $signed): array
    {
        if (!self::isHttpUrl($this->serviceUrl)) {
            throw new ServiceError(0, 'not_configured', __('The service URL is missing or not a valid http(s) address.', 'chat-agent'));
        }
        if ($this->apiToken === '') {
            throw new ServiceError(0, 'not_configured', __('No API token is saved.', 'chat-agent'));
        }
        $json = (string) wp_json_encode($body, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
        $url = $this->serviceUrl . $path;
        for ($attempt = 0;; $attempt++) {
            $headers = [
                'Authorization' => 'Bearer ' . $this->apiToken,
                'Content-Type' => 'application/json',
                'Accept' => 'application/json',
            ];
            if ($signed) {
                $headers[Signature::HEADER] = Signature::sign($this->apiToken, $json, time());
            }
            $response = wp_remote_post($url, [
                'timeout' => self::TIMEOUT,
                'redirection' => 0,
                'headers' => $headers,
                'body' => $json,
                'data_format' => 'body',
            ]);
            $status = is_wp_error($response) ? 0 : (int) wp_remote_retrieve_response_code($response);
            if ($status >= 200 && $status < 300) {
                return $this->data($response, $path);
            }
            $retryAfterHeader = is_wp_error($response) ? '' : wp_remote_retrieve_header($response, 'retry-after');
            $retryAfter = is_string($retryAfterHeader) && $retryAfterHeader !== '' ? $retryAfterHeader : null;
            $wait = RetryPolicy::delay($status, $retryAfter, $attempt, time());
            $canRetry = RetryPolicy::isRetryable($status) && $attempt < RetryPolicy::MAX_RETRIES
                && $wait <= RetryPolicy::MAX_INLINE_WAIT;
            if (!$canRetry) {
                throw $this->failure($response, $status, $path, $retryAfter !== null ? $wait : null);
            }
            ($this->sleep)($wait);
        }
    }

    /**
     * @param array<string, mixed>|\WP_Error $response
     * @return array<string, mixed>
     */
    private function data($response, string $path): array
    {
        $decoded = json_decode((string) wp_remote_retrieve_body($response), true);
        if (!is_array($decoded) || !is_array($decoded['data'] ?? null)) {
            throw new ServiceError(502, 'bad_response', sprintf(
                /* translators: %s: the route, e.g. /api/v1/wp/handshake */
                __('%s answered with an unexpected body. Check that the service URL points at the service itself.', 'chat-agent'),
                $path
            ));
        }
        return $decoded['data'];
    }

    /** @param array<string, mixed>|\WP_Error $response */
    private function failure($response, int $status, string $path, ?int $retryAfter): ServiceError
    {
        if (is_wp_error($response)) {
            return new ServiceError(0, 'network_error', sprintf(
                /* translators: 1: service URL, 2: the error */
                __('Could not reach the service at %1$s (%2$s). Check the URL and that this site may make outgoing requests.', 'chat-agent'),
                $this->serviceUrl,
                $response->get_error_message()
            ));
        }
        $envelope = json_decode((string) wp_remote_retrieve_body($response), true);
        $code = is_array($envelope) && is_string($envelope['code'] ?? null) ? $envelope['code'] : '';
        $said = is_array($envelope) && is_string($envelope['message'] ?? null) ? $envelope['message'] : '';
        $errors = is_array($envelope) && is_array($envelope['errors'] ?? null) ? $envelope['errors'] : [];
        $message = match (true) {
            $status === 401 => __(
                'The service refused the API token (wrong or revoked) or its signature. Paste the token again and check that this site\'s clock is right.',
                'chat-agent'
            ),
            $status === 403 => __('The API token lacks the wp:integration ability. Issue a token with that ability.', 'chat-agent'),
            $status === 404 => __('The service does not know this agent or route. Run Test connection again and pick an agent.', 'chat-agent'),
            $status === 429 => __('The service is throttling this site (too many requests). The sync will try again later.', 'chat-agent'),
            $status >= 500 => __('The service failed on its side. The sync will try again later.', 'chat-agent'),
            default => __('The service refused the request.', 'chat-agent'),
        };
        $details = [];
        foreach (array_slice($errors, 0, 5, true) as $field => $messages) {
            $details[] = $field . ': ' . (is_array($messages) ? implode(' ', array_map('strval', $messages)) : '');
        }
        $full = sprintf('%s %d %s. %s', $path, $status, $code !== '' ? $code : 'error', $message)
            . ($said !== '' ? ' ' . $said : '') . ($details !== [] ? ' (' . implode('; ', $details) . ')' : '');
        return new ServiceError($status, $code !== '' ? $code : 'http_' . $status, $full, $retryAfter);
    }
}
