<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * The plugin routes the service calls (contract section B) under the REST namespace `service/v1`:
 * orders/lookup, leads and cart/coupon. Authentication is the signature over the raw body, checked
 * before anything is parsed, in the contract's order; answers use the plugin envelope
 * `{data: …}` / `{error: {code, message}}`.
 */
final class RestRoutes
{
    public const NAMESPACE = 'service/v1';
    public const ROUTES = ['orders/lookup', 'leads', 'cart/coupon'];
    /** Larger bodies get 413 before anything else, as the SDK's default cap (64 KiB). */
    public const MAX_BODY_BYTES = 65536;

    /** @var array<string, array{0: int, 1: string}> */
    private const ERRORS = [
        'missing_signature' => [401, 'The request signature is missing.'],
        'plugin_unconfigured' => [401, 'The plugin has no signing secret configured.'],
        'signature_mismatch' => [401, 'The request signature does not match.'],
        'invalid_coupon' => [400, 'The coupon code does not exist.'],
        'commerce_inactive' => [400, 'The commerce extension is not active on this site.'],
        'internal_error' => [500, 'Something went wrong on our side.'],
    ];

    public static function register(): void
    {
        add_action('rest_api_init', [self::class, 'registerRoutes']);
        add_filter('rest_request_before_callbacks', [self::class, 'beforeCallbacks'], 10, 3);
    }

    public static function registerRoutes(): void
    {
        foreach (self::ROUTES as $route) {
            register_rest_route(self::NAMESPACE, '/' . $route, [
                'methods' => 'POST',
                'callback' => static fn (\WP_REST_Request $request) => self::handle($route, $request),
                'permission_callback' => '__return_true',
            ]);
        }
    }

    /**
     * WordPress parses a JSON body before the callbacks and answers `rest_invalid_json` on its own;
     * for these routes the signature comes first, so that early error is dropped here and the
     * callback verifies, then parses, the raw body itself.
     *
     * @param mixed $response
     * @param array<string, mixed> $handler
     * @return mixed
     */
    public static function beforeCallbacks($response, $handler, $request)
    {
        if ($request instanceof \WP_REST_Request && self::isOurs($request) && is_wp_error($response)) {
            return null;
        }
        return $response;
    }

    private static function isOurs(\WP_REST_Request $request): bool
    {
        $route = ltrim((string) $request->get_route(), '/');
        foreach (self::ROUTES as $ours) {
            if ($route === self::NAMESPACE . '/' . $ours) {
                return true;
            }
        }
        return false;
    }

    public static function handle(string $route, \WP_REST_Request $request): \WP_REST_Response
    {
        $body = (string) $request->get_body();
        if (strlen($body) > self::MAX_BODY_BYTES) {
            return self::respond(413, ['error' => [
                'code' => 'payload_too_large',
                'message' => 'The request body is larger than ' . self::MAX_BODY_BYTES . ' bytes.',
            ]]);
        }
        $header = $request->get_header('x_service_signature');
        if ($header === null || $header === '') {
            return self::error('missing_signature');
        }
        $secret = Options::signingSecret();
        if ($secret === '') {
            return self::error('plugin_unconfigured');
        }
        if (Signature::verify($header, $secret, $body, time()) !== 'ok') {
            return self::error('signature_mismatch');
        }
        $decoded = json_decode($body, true, 64);
        if (json_last_error() !== JSON_ERROR_NONE) {
            return self::respond(400, ['error' => [
                'code' => 'rest_invalid_param',
                'message' => 'Invalid parameter(s): (body) (not valid JSON).',
            ]]);
        }
        // `{}` and `[]` both decode to an empty PHP array: only a JSON object is a body.
        if (!is_object(json_decode($body, false, 64))) {
            $decoded = null;
        }
        [$input, $problem] = RequestValidator::validate($route, $decoded);
        if ($input === null) {
            return self::respond(400, ['error' => ['code' => 'rest_invalid_param', 'message' => (string) $problem]]);
        }
        try {
            return match ($route) {
                'orders/lookup' => self::ordersLookup($input),
                'leads' => self::leads($input),
                'cart/coupon' => self::cartCoupon($input),
            };
        } catch (\Throwable $error) {
            error_log('chat-agent: ' . $route . ' failed: ' . $error->getMessage());
            return self::error('internal_error');
        }
    }

    /** @param array<string, mixed> $input */
    private static function ordersLookup(array $input): \WP_REST_Response
    {
        if (!Options::commerceActive()) {
            return self::respond(200, ['data' => ['orders' => [], 'count' => 0, 'note' => 'commerce_inactive']]);
        }
        $orders = Commerce::findOrders(
            (int) $input['wp_user_id'],
            (int) $input['limit'],
            isset($input['order_number']) ? (string) $input['order_number'] : null
        );
        return self::respond(200, ['data' => ['orders' => $orders, 'count' => count($orders)]]);
    }

    /** @param array<string, mixed> $input */
    private static function leads(array $input): \WP_REST_Response
    {
        if (!is_email(trim((string) $input['email']))) {
            return self::respond(400, ['error' => [
                'code' => 'rest_invalid_param',
                'message' => 'Invalid parameter(s): email (not a valid email address).',
            ]]);
        }
        return self::respond(200, ['data' => ['user_id' => Leads::upsert($input)]]);
    }

    /** @param array<string, mixed> $input */
    private static function cartCoupon(array $input): \WP_REST_Response
    {
        if (!Options::commerceActive()) {
            return self::error('commerce_inactive');
        }
        $code = (string) $input['code'];
        if (!Commerce::couponExists($code)) {
            return self::error('invalid_coupon');
        }
        CouponStaging::stage((string) $input['conversation_id'], $code);
        return self::respond(200, ['data' => [
            'applied' => false,
            'pending' => true,
            'message' => sprintf('Coupon %s will be applied to your next cart.', $code),
        ]]);
    }

    private static function error(string $code): \WP_REST_Response
    {
        [$status, $message] = self::ERRORS[$code];
        return self::respond($status, ['error' => ['code' => $code, 'message' => $message]]);
    }

    /** @param array<string, mixed> $payload */
    private static function respond(int $status, array $payload): \WP_REST_Response
    {
        $response = new \WP_REST_Response($payload, $status);
        $response->header('Cache-Control', 'no-store');
        $response->header('X-Content-Type-Options', 'nosniff');
        return $response;
    }
}
