<?php

declare(strict_types=1);

namespace ChatAgent\Tests;

use ChatAgent\ConversationCookie;
use ChatAgent\Leads;
use ChatAgent\RetryPolicy;
use ChatAgent\Widget;
use PHPUnit\Framework\TestCase;

/** The small pure rules: cookie parsing, retry timing, lead fill rules, widget exclusions. */
final class PureHelpersTest extends TestCase
{
    /** @return iterable<string, array{?string, ?string}> */
    public static function cookies(): iterable
    {
        yield 'plain' => ['svc_conversation=conv-1', 'conv-1'];
        yield 'among others, spaced' => ['a=1;  svc_conversation = conv%201 ; b=2', 'conv 1'];
        yield 'quoted' => ['svc_conversation="conv-2"', 'conv-2'];
        yield 'absent' => ['other=1', null];
        yield 'empty' => ['svc_conversation=', null];
        yield 'too long' => ['svc_conversation=' . str_repeat('c', 65), null];
        yield 'no header' => [null, null];
        yield 'pair without equals skipped' => ['svc_conversation; svc_conversation=x', 'x'];
        yield 'bad percent kept raw' => ['svc_conversation=a%zz', 'a%zz'];
        yield 'prefix name is not the cookie' => ['xsvc_conversation=1', null];
    }

    /** @dataProvider cookies */
    public function testReadsTheConversationCookie(?string $header, ?string $expected): void
    {
        self::assertSame($expected, ConversationCookie::fromHeader($header));
    }

    public function testRetryAfterSecondsAndDatesAndBackoff(): void
    {
        $now = 1793523600;
        self::assertSame(7, RetryPolicy::delay(429, '7', 0, $now));
        self::assertSame(30, RetryPolicy::delay(429, gmdate('D, d M Y H:i:s', $now + 30) . ' GMT', 0, $now));
        self::assertSame(4, RetryPolicy::delay(503, null, 2, $now));
        self::assertSame(1, RetryPolicy::delay(429, 'soon', 0, $now));
        self::assertTrue(RetryPolicy::isRetryable(429));
        self::assertTrue(RetryPolicy::isRetryable(502));
        self::assertTrue(RetryPolicy::isRetryable(0));
        self::assertFalse(RetryPolicy::isRetryable(401));
        self::assertFalse(RetryPolicy::isRetryable(422));
        self::assertSame([30, 60, 120, 3600, 90], [
            RetryPolicy::cronBackoff(1),
            RetryPolicy::cronBackoff(2),
            RetryPolicy::cronBackoff(3),
            RetryPolicy::cronBackoff(20),
            RetryPolicy::cronBackoff(1, 90),
        ]);
    }

    public function testALeadOnlyFillsEmptyFields(): void
    {
        $current = ['first_name' => 'Janet', 'last_name' => '', 'chat_agent_phone' => '  ', 'chat_agent_lead_id' => 'old'];
        $lead = ['first_name' => 'Jane', 'last_name' => 'Doe', 'chat_agent_phone' => '+1 555', 'chat_agent_lead_id' => 'new'];
        self::assertSame(['last_name' => 'Doe', 'chat_agent_phone' => '+1 555'], Leads::fillEmpty($current, $lead));
        self::assertSame([], Leads::fillEmpty(['first_name' => ''], ['first_name' => '']));
    }

    public function testSplitsAName(): void
    {
        self::assertSame(['Jane', 'van der Berg'], Leads::splitName('  Jane   van der Berg '));
        self::assertSame(['Cher', ''], Leads::splitName('Cher'));
        self::assertSame(['', ''], Leads::splitName('   '));
    }

    public function testWidgetExclusions(): void
    {
        $rules = "/checkout/\n42\n/account/*\n\n";
        self::assertTrue(Widget::isExcluded($rules, '/checkout', 0));
        self::assertTrue(Widget::isExcluded($rules, '/checkout/', 7));
        self::assertFalse(Widget::isExcluded($rules, '/checkout/done', 7));
        self::assertTrue(Widget::isExcluded($rules, '/account/orders/', 7));
        self::assertTrue(Widget::isExcluded($rules, '/account', 7));
        self::assertFalse(Widget::isExcluded($rules, '/accounting/', 7));
        self::assertTrue(Widget::isExcluded($rules, '/hello/', 42));
        self::assertFalse(Widget::isExcluded($rules, '/hello/', 41));
        self::assertFalse(Widget::isExcluded('', '/', 1));
    }
}
