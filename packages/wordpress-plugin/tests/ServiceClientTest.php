<?php

declare(strict_types=1);

namespace ChatAgent\Tests;

use ChatAgent\ServiceClient;
use ChatAgent\ServiceError;
use ChatAgent\Signature;
use PHPUnit\Framework\TestCase;

/** Calls to the service: bearer, signature, retries on 429/5xx, errors in words (tests/wp-stubs.php). */
final class ServiceClientTest extends TestCase
{
    /** @var list<int> */
    private array $slept = [];

    protected function setUp(): void
    {
        $GLOBALS['chat_agent_test_http'] = [];
        $GLOBALS['chat_agent_test_requests'] = [];
        $this->slept = [];
    }

    /** @param array<string, string> $headers */
    private static function answer(int $status, mixed $body, array $headers = []): array
    {
        return [
            'response' => ['code' => $status],
            'body' => is_string($body) ? $body : json_encode($body),
            'headers' => $headers,
        ];
    }

    private function client(string $token = 'svc_token'): ServiceClient
    {
        return new ServiceClient('https://chat.example.net', $token, '1.2.3', function (int $seconds): void {
            $this->slept[] = $seconds;
        });
    }

    public function testHandshakeSendsTheBearerOnlyAndTheContractBody(): void
    {
        $GLOBALS['chat_agent_test_http'][] = self::answer(200, ['data' => ['workspace' => ['name' => 'W']]]);
        $data = $this->client()->handshake();
        self::assertSame(['workspace' => ['name' => 'W']], $data);
        $request = $GLOBALS['chat_agent_test_requests'][0];
        self::assertSame('https://chat.example.net/api/v1/wp/handshake', $request['url']);
        self::assertSame('Bearer svc_token', $request['args']['headers']['Authorization']);
        self::assertArrayNotHasKey(Signature::HEADER, $request['args']['headers']);
        self::assertSame(30, $request['args']['timeout']);
        self::assertSame([
            'site_url' => 'https://shop.example.com',
            'plugin_version' => '1.2.3',
            'commerce_active' => false,
            'cms_version' => '6.1.9',
        ], json_decode($request['args']['body'], true));
    }

    public function testMutatingCallsAreSignedWithTheTokenOverTheExactBody(): void
    {
        $GLOBALS['chat_agent_test_http'][] = self::answer(200, ['data' => ['stored' => 1]]);
        $this->client()->send('coupons/sync', 'agent_1', ['coupons' => [['code' => 'A/B', 'label' => 'é']]]);
        $request = $GLOBALS['chat_agent_test_requests'][0];
        $body = $request['args']['body'];
        self::assertStringContainsString('"A/B"', $body, 'slashes and UTF-8 are sent as they are');
        self::assertStringContainsString('"é"', $body);
        $header = $request['args']['headers'][Signature::HEADER];
        $parsed = Signature::parseHeader($header);
        self::assertNotNull($parsed);
        self::assertSame('ok', Signature::verify($header, 'svc_token', $body, $parsed['t']));
        self::assertSame('agent_1', json_decode($body, true)['agent_id']);
    }

    public function testRetriesA429AfterItsRetryAfterWithAFreshSignature(): void
    {
        $GLOBALS['chat_agent_test_http'][] = self::answer(429, ['message' => 'slow'], ['retry-after' => '2']);
        $GLOBALS['chat_agent_test_http'][] = self::answer(200, ['data' => ['queued' => 1]]);
        self::assertSame(['queued' => 1], $this->client()->send('posts/sync', 'a', ['posts' => []]));
        self::assertSame([2], $this->slept);
        self::assertCount(2, $GLOBALS['chat_agent_test_requests']);
    }

    public function testRetries5xxWithBackoffThenGivesUp(): void
    {
        for ($i = 0; $i < 4; $i++) {
            $GLOBALS['chat_agent_test_http'][] = self::answer(503, ['message' => 'down', 'code' => 'not_ready']);
        }
        try {
            $this->client()->send('posts/sync', 'a', ['posts' => []]);
            self::fail('expected a ServiceError');
        } catch (ServiceError $error) {
            self::assertSame(503, $error->status);
            self::assertSame('not_ready', $error->errorCode);
            self::assertTrue($error->isRetryable());
        }
        self::assertSame([1, 2, 4], $this->slept);
        self::assertCount(4, $GLOBALS['chat_agent_test_requests']);
    }

    public function testALongRetryAfterIsNotSleptButReturnedForTheCronRetry(): void
    {
        $GLOBALS['chat_agent_test_http'][] = self::answer(429, ['message' => 'slow'], ['retry-after' => '120']);
        try {
            $this->client()->send('posts/sync', 'a', ['posts' => []]);
            self::fail('expected a ServiceError');
        } catch (ServiceError $error) {
            self::assertSame(429, $error->status);
            self::assertSame(120, $error->retryAfter);
        }
        self::assertSame([], $this->slept);
    }

    public function testA401IsNotRetriedAndSaysWhatToDo(): void
    {
        $GLOBALS['chat_agent_test_http'][] = self::answer(401, ['message' => 'Unauthenticated.', 'code' => 'unauthenticated']);
        try {
            $this->client()->handshake();
            self::fail('expected a ServiceError');
        } catch (ServiceError $error) {
            self::assertSame(401, $error->status);
            self::assertFalse($error->isRetryable());
            self::assertStringContainsString('API token', $error->getMessage());
        }
        self::assertCount(1, $GLOBALS['chat_agent_test_requests']);
    }

    public function testA422ListsTheFields(): void
    {
        $GLOBALS['chat_agent_test_http'][] = self::answer(422, [
            'message' => 'invalid',
            'code' => 'validation_failed',
            'errors' => ['posts.0.permalink' => ['Must be a URL.']],
        ]);
        $this->expectException(ServiceError::class);
        $this->expectExceptionMessage('posts.0.permalink: Must be a URL.');
        $this->client()->send('posts/sync', 'a', ['posts' => []]);
    }

    public function testA2xxWithoutDataIsABadResponse(): void
    {
        $GLOBALS['chat_agent_test_http'][] = self::answer(200, '<html>login</html>');
        try {
            $this->client()->handshake();
            self::fail('expected a ServiceError');
        } catch (ServiceError $error) {
            self::assertSame('bad_response', $error->errorCode);
        }
    }

    public function testNoAnswerIsANetworkErrorAfterRetries(): void
    {
        try {
            $this->client()->handshake();
            self::fail('expected a ServiceError');
        } catch (ServiceError $error) {
            self::assertSame(0, $error->status);
            self::assertSame('network_error', $error->errorCode);
        }
        self::assertSame([1, 2, 4], $this->slept);
    }

    public function testRefusesToCallWithoutAUrlOrAToken(): void
    {
        foreach ([['', 'svc'], ['ftp://x', 'svc'], ['https://chat.example.net', '']] as [$url, $token]) {
            try {
                (new ServiceClient($url, $token))->handshake();
                self::fail('expected a ServiceError');
            } catch (ServiceError $error) {
                self::assertSame('not_configured', $error->errorCode);
            }
        }
        self::assertSame([], $GLOBALS['chat_agent_test_requests']);
    }
}
