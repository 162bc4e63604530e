<?php

declare(strict_types=1);

namespace ChatAgent\Tests;

use ChatAgent\Signature;
use PHPUnit\Framework\TestCase;

/** The HMAC scheme against the vectors shared with the service and the SDK. */
final class SignatureTest extends TestCase
{
    /** @return array<string, mixed> */
    private static function fixture(): array
    {
        $path = chat_agent_repo_root() . '/packages/contract/fixtures/hmac-vectors.json';
        $data = json_decode((string) file_get_contents($path), true, 512, JSON_THROW_ON_ERROR);
        self::assertIsArray($data);
        return $data;
    }

    /** @return iterable<string, array{array<string, mixed>}> */
    public static function validVectors(): iterable
    {
        foreach (self::fixture()['valid'] as $vector) {
            yield $vector['name'] => [$vector];
        }
    }

    /** @return iterable<string, array{array<string, mixed>}> */
    public static function invalidVectors(): iterable
    {
        foreach (self::fixture()['invalid'] as $vector) {
            yield $vector['name'] => [$vector];
        }
    }

    public function testTheFixtureHasCasesOfEveryKind(): void
    {
        $fixture = self::fixture();
        self::assertGreaterThanOrEqual(10, count($fixture['valid']));
        $expected = array_unique(array_column($fixture['invalid'], 'expected'));
        sort($expected);
        self::assertSame(['mismatch', 'missing'], $expected);
    }

    /**
     * @dataProvider validVectors
     * @param array<string, mixed> $vector
     */
    public function testSignsEachValidVectorToTheSameHeader(array $vector): void
    {
        self::assertSame($vector['header'], Signature::sign($vector['key'], $vector['body'], $vector['timestamp']));
    }

    /**
     * @dataProvider validVectors
     * @param array<string, mixed> $vector
     */
    public function testVerifiesEachValidVector(array $vector): void
    {
        self::assertSame('ok', Signature::verify($vector['header'], $vector['key'], $vector['body'], $vector['now']));
    }

    /**
     * @dataProvider invalidVectors
     * @param array<string, mixed> $vector
     */
    public function testRefusesEachInvalidVector(array $vector): void
    {
        self::assertSame(
            $vector['expected'],
            Signature::verify($vector['header'], $vector['key'], $vector['body'], $vector['now'])
        );
    }

    public function testAnEmptyKeyNeverVerifies(): void
    {
        $header = Signature::sign('k', '{}', 1793523600);
        self::assertSame('mismatch', Signature::verify($header, '', '{}', 1793523600));
    }

    public function testUpperCaseHexIsAccepted(): void
    {
        $header = Signature::sign('key', '{"a":1}', 1793523600);
        [$t, $v1] = explode(',', $header);
        self::assertSame('ok', Signature::verify($t . ',v1=' . strtoupper(substr($v1, 3)), 'key', '{"a":1}', 1793523600));
    }

    /** @return iterable<string, array{string}> */
    public static function malformedHeaders(): iterable
    {
        $hex = str_repeat('a', 64);
        yield 'leading zero' => ['t=01793523600,v1=' . $hex];
        yield 'plus sign' => ['t=+1793523600,v1=' . $hex];
        yield 'thirteen digits' => ['t=1793523600000,v1=' . $hex];
        yield 'order reversed is fine but three parts are not' => ['v1=' . $hex . ',t=1,x=2'];
        yield 'trailing comma' => ['t=1793523600,v1=' . $hex . ','];
        yield 'leading comma' => [',t=1793523600,v1=' . $hex];
        yield 'no equals' => ['t1793523600,v1=' . $hex];
        yield 'empty name' => ['=1793523600,v1=' . $hex];
        yield 'newline after hex' => ["t=1793523600,v1=" . $hex . "\n"];
        yield 'v1 with 0x' => ['t=1793523600,v1=0x' . substr($hex, 2)];
        yield 'tab' => ["t=1793523600,\tv1=" . $hex];
        yield 'only commas' => [','];
    }

    /** @dataProvider malformedHeaders */
    public function testParseHeaderRefusesMalformedHeaders(string $header): void
    {
        self::assertNull(Signature::parseHeader($header));
        self::assertSame('mismatch', Signature::verify($header, 'key', '', 1793523600));
    }

    public function testParseHeaderAcceptsEitherOrderAndZero(): void
    {
        $hex = str_repeat('B', 64);
        self::assertSame(['t' => 5, 'v1' => str_repeat('b', 64)], Signature::parseHeader('v1=' . $hex . ',t=5'));
        self::assertSame(0, Signature::parseHeader('t=0,v1=' . $hex)['t'] ?? null);
    }

    public function testSignRefusesAnEmptyKeyAndANegativeTime(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        Signature::sign('', 'body', 1);
    }

    public function testSignRefusesANegativeTime(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        Signature::sign('key', 'body', -1);
    }
}
