<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * Validates the decoded JSON body of each plugin route with the contract's schemas
 * (packages/contract/src/plugin-routes.ts): strict objects, exact types and lengths, defaults.
 * A failure is the message of a 400 `rest_invalid_param` naming the fields at fault.
 */
final class RequestValidator
{
    public const DEFAULT_LIMIT = 5;
    public const MAX_LIMIT = 20;

    /** @var array<string, array<string, array{type: string, required: bool, min?: int, max?: int, trim?: bool}>> */
    private const SCHEMAS = [
        'orders/lookup' => [
            'wp_user_id' => ['type' => 'int', 'required' => true, 'min' => 1],
            'limit' => ['type' => 'int', 'required' => false, 'min' => 1, 'max' => self::MAX_LIMIT],
            'order_number' => ['type' => 'string', 'required' => false, 'min' => 1, 'max' => 64, 'trim' => true],
        ],
        'leads' => [
            'email' => ['type' => 'string', 'required' => true, 'min' => 3, 'max' => 320],
            'name' => ['type' => 'string', 'required' => true, 'max' => 200],
            'phone' => ['type' => 'string', 'required' => true, 'max' => 64],
            'conversation_id' => ['type' => 'string', 'required' => true, 'max' => 64],
            'service_lead_id' => ['type' => 'string', 'required' => true, 'min' => 1, 'max' => 64],
        ],
        'cart/coupon' => [
            'code' => ['type' => 'string', 'required' => true, 'min' => 1, 'max' => 100, 'trim' => true],
            'conversation_id' => ['type' => 'string', 'required' => true, 'min' => 1, 'max' => 64],
        ],
    ];

    /**
     * @return array{0: array<string, mixed>|null, 1: string|null} [request, null] or [null, message]
     */
    public static function validate(string $route, mixed $body): array
    {
        $schema = self::SCHEMAS[$route] ?? null;
        if ($schema === null) {
            throw new \InvalidArgumentException('Unknown route ' . $route);
        }
        if (!is_array($body) || (array_is_list($body) && $body !== [])) {
            return [null, self::message(['(body) (expected a JSON object)'])];
        }
        $issues = [];
        $unknown = array_diff(array_map('strval', array_keys($body)), array_keys($schema));
        if ($unknown !== []) {
            $issues[] = implode(', ', $unknown) . ' (unrecognized key)';
        }
        $request = [];
        foreach ($schema as $field => $rule) {
            if (!array_key_exists($field, $body)) {
                if ($rule['required']) {
                    $issues[] = $field . ' (required)';
                } elseif ($field === 'limit') {
                    $request['limit'] = self::DEFAULT_LIMIT;
                }
                continue;
            }
            [$value, $issue] = self::check($body[$field], $rule);
            if ($issue !== null) {
                $issues[] = $field . ' (' . $issue . ')';
                continue;
            }
            $request[$field] = $value;
        }
        if ($issues !== []) {
            return [null, self::message($issues)];
        }
        return [$request, null];
    }

    /**
     * @param array{type: string, required: bool, min?: int, max?: int, trim?: bool} $rule
     * @return array{0: mixed, 1: string|null}
     */
    private static function check(mixed $value, array $rule): array
    {
        if ($rule['type'] === 'int') {
            if (is_float($value) && is_finite($value) && floor($value) === $value && abs($value) < 2 ** 53) {
                $value = (int) $value;
            }
            if (!is_int($value)) {
                return [null, 'expected an integer'];
            }
            if (isset($rule['min']) && $value < $rule['min']) {
                return [null, 'must be at least ' . $rule['min']];
            }
            if (isset($rule['max']) && $value > $rule['max']) {
                return [null, 'must be at most ' . $rule['max']];
            }
            return [$value, null];
        }
        if (!is_string($value)) {
            return [null, 'expected a string'];
        }
        if (str_contains($value, "\0") || !mb_check_encoding($value, 'UTF-8')) {
            return [null, 'must not contain NUL (U+0000) or invalid characters'];
        }
        if (!empty($rule['trim'])) {
            $value = trim($value, " \t\n\r\0\x0B\f");
        }
        $length = self::jsLength($value);
        if (isset($rule['min']) && $length < $rule['min']) {
            return [null, 'too short: at least ' . $rule['min'] . ' characters'];
        }
        if (isset($rule['max']) && $length > $rule['max']) {
            return [null, 'too long: at most ' . $rule['max'] . ' characters'];
        }
        return [$value, null];
    }

    /** The length JavaScript would give: UTF-16 code units. */
    private static function jsLength(string $value): int
    {
        return intdiv(strlen((string) mb_convert_encoding($value, 'UTF-16LE', 'UTF-8')), 2);
    }

    /** @param list<string> $issues */
    private static function message(array $issues): string
    {
        return 'Invalid parameter(s): ' . implode('; ', array_slice($issues, 0, 5)) . '.';
    }
}
