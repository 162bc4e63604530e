<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * The batching and cursor logic of a full sync, as the SDK's sync client does it: list a page of
 * at most `$batchSize` items after the cursor (ascending wp_id), read one page ahead so the last
 * batch with items is the one marked final (no items left: one empty final batch), and move the
 * cursor only once the service accepted the batch.
 */
final class BatchPager
{
    public const MAX_BATCH = 50;

    /**
     * The next batch after `$afterId`.
     *
     * @param callable(int, int): list<array<string, mixed>> $list (afterId, limit) => items with wp_id
     * @return array{items: list<array<string, mixed>>, final: bool, last: int}
     */
    public static function nextBatch(callable $list, int $afterId, int $batchSize = self::MAX_BATCH): array
    {
        if ($batchSize < 1 || $batchSize > self::MAX_BATCH) {
            throw new \InvalidArgumentException('batchSize must be from 1 to ' . self::MAX_BATCH . '.');
        }
        $items = array_slice($list($afterId, $batchSize), 0, $batchSize);
        $previous = $afterId;
        foreach ($items as $item) {
            $id = (int) ($item['wp_id'] ?? 0);
            if ($id <= $previous) {
                throw new \UnexpectedValueException(
                    'The listing must return wp_id greater than the cursor, ascending; got ' . $id
                    . ' after ' . $previous . '.'
                );
            }
            $previous = $id;
        }
        $next = $items === [] ? [] : array_slice($list($previous, $batchSize), 0, $batchSize);
        return ['items' => array_values($items), 'final' => $next === [], 'last' => $previous];
    }

    /**
     * The run state after the service accepted a batch: the cursor moves to the batch's last id;
     * after the final batch the run is over (cursor and run id dropped, so the next run starts over).
     *
     * @param array<string, mixed> $run
     * @param array{items: list<array<string, mixed>>, final: bool, last: int} $batch
     * @param array<string, mixed> $result the service's `data` (queued, skipped_unchanged, deleted…)
     * @return array<string, mixed>
     */
    public static function accept(array $run, array $batch, array $result): array
    {
        foreach (['queued', 'skipped_unchanged', 'deleted', 'failed'] as $count) {
            $run[$count] = (int) ($run[$count] ?? 0) + (int) ($result[$count] ?? 0);
        }
        $run['sent'] = (int) ($run['sent'] ?? 0) + count($batch['items']);
        $run['batches'] = (int) ($run['batches'] ?? 0) + 1;
        $failures = is_array($result['failures'] ?? null) ? $result['failures'] : [];
        $run['item_failures'] = array_slice(array_merge($run['item_failures'] ?? [], $failures), -50);
        if ($batch['final']) {
            $run['cursor'] = 0;
            $run['id'] = null;
            $run['done'] = true;
        } else {
            $run['cursor'] = $batch['last'];
        }
        return $run;
    }

    /** A fresh run id: 128 random bits, hex (the service takes letters, digits and `._:-`). */
    public static function newRunId(): string
    {
        return bin2hex(random_bytes(16));
    }
}
