<?php

declare(strict_types=1);

namespace ChatAgent;

/** A failed call to the service: the HTTP status (0: no answer), a code and a message in words. */
final class ServiceError extends \RuntimeException
{
    public function __construct(
        public readonly int $status,
        public readonly string $errorCode,
        string $message,
        public readonly ?int $retryAfter = null,
    ) {
        parent::__construct($message);
    }

    public function isRetryable(): bool
    {
        return RetryPolicy::isRetryable($this->status);
    }
}
