<?php

declare(strict_types=1);

namespace ChatAgent\Tests;

use ChatAgent\RequestValidator;
use PHPUnit\Framework\TestCase;

/** Body validation of the plugin routes, as the contract's strict schemas. */
final class RequestValidatorTest extends TestCase
{
    public function testOrdersLookupDefaultsTheLimitToFive(): void
    {
        self::assertSame([['wp_user_id' => 7, 'limit' => 5], null], RequestValidator::validate('orders/lookup', ['wp_user_id' => 7]));
    }

    public function testOrdersLookupTrimsTheOrderNumberAndTakesAWholeFloat(): void
    {
        [$request] = RequestValidator::validate('orders/lookup', ['wp_user_id' => 7.0, 'limit' => 20, 'order_number' => ' NW-1 ']);
        self::assertSame(['wp_user_id' => 7, 'limit' => 20, 'order_number' => 'NW-1'], $request);
    }

    /** @return iterable<string, array{string, mixed, string}> */
    public static function invalid(): iterable
    {
        yield 'limit 21' => ['orders/lookup', ['wp_user_id' => 7, 'limit' => 21], 'limit'];
        yield 'limit 0' => ['orders/lookup', ['wp_user_id' => 7, 'limit' => 0], 'limit'];
        yield 'user 0' => ['orders/lookup', ['wp_user_id' => 0], 'wp_user_id'];
        yield 'user as string' => ['orders/lookup', ['wp_user_id' => '7'], 'wp_user_id'];
        yield 'user fractional' => ['orders/lookup', ['wp_user_id' => 7.5], 'wp_user_id'];
        yield 'unknown key' => ['orders/lookup', ['wp_user_id' => 7, 'extra' => 1], 'extra'];
        yield 'blank order number' => ['orders/lookup', ['wp_user_id' => 7, 'order_number' => '  '], 'order_number'];
        yield 'body a list' => ['orders/lookup', [1, 2], '(body)'];
        yield 'body a string' => ['leads', 'x', '(body)'];
        yield 'lead without email' => ['leads', ['name' => '', 'phone' => '', 'conversation_id' => '', 'service_lead_id' => 'l'], 'email'];
        yield 'lead email too short' => ['leads', self::lead(['email' => 'a@']), 'email'];
        yield 'lead id empty' => ['leads', self::lead(['service_lead_id' => '']), 'service_lead_id'];
        yield 'lead name too long' => ['leads', self::lead(['name' => str_repeat('é', 201)]), 'name'];
        yield 'lead phone a number' => ['leads', self::lead(['phone' => 5551234]), 'phone'];
        yield 'lead with NUL' => ['leads', self::lead(['name' => "a\0b"]), 'name'];
        yield 'coupon code blank' => ['cart/coupon', ['code' => ' ', 'conversation_id' => 'c'], 'code'];
        yield 'coupon code too long' => ['cart/coupon', ['code' => str_repeat('A', 101), 'conversation_id' => 'c'], 'code'];
        yield 'coupon conversation empty' => ['cart/coupon', ['code' => 'A', 'conversation_id' => ''], 'conversation_id'];
        yield 'coupon conversation 65' => ['cart/coupon', ['code' => 'A', 'conversation_id' => str_repeat('c', 65)], 'conversation_id'];
    }

    /** @dataProvider invalid */
    public function testRefusesNamingTheField(string $route, mixed $body, string $field): void
    {
        [$request, $message] = RequestValidator::validate($route, $body);
        self::assertNull($request);
        self::assertIsString($message);
        self::assertStringStartsWith('Invalid parameter(s): ', $message);
        self::assertStringContainsString($field, $message);
    }

    public function testALeadAndACouponPass(): void
    {
        self::assertSame([self::lead([]), null], RequestValidator::validate('leads', self::lead([])));
        self::assertSame(
            [['code' => 'SAVE10', 'conversation_id' => 'conv-1'], null],
            RequestValidator::validate('cart/coupon', ['code' => ' SAVE10 ', 'conversation_id' => 'conv-1'])
        );
    }

    /**
     * @param array<string, mixed> $override
     * @return array<string, mixed>
     */
    private static function lead(array $override): array
    {
        return array_merge([
            'email' => 'Jane@Example.com',
            'name' => 'Jane Doe',
            'phone' => '+1 555',
            'conversation_id' => 'conv-1',
            'service_lead_id' => 'lead-1',
        ], $override);
    }
}
