<?php

declare(strict_types=1);

namespace ChatAgent\Tests;

use ChatAgent\BatchPager;
use PHPUnit\Framework\TestCase;

/** The full sync's batching and cursor, as the SDK's sync client does them. */
final class BatchPagerTest extends TestCase
{
    /** @return callable(int, int): list<array{wp_id: int}> */
    private static function site(int $count, array &$calls = []): callable
    {
        $ids = range(1, $count);
        return static function (int $after, int $limit) use ($ids, &$calls): array {
            $calls[] = [$after, $limit];
            $page = array_slice(array_values(array_filter($ids, static fn ($id) => $id * 10 > $after)), 0, $limit);
            return array_map(static fn ($id) => ['wp_id' => $id * 10], $page);
        };
    }

    /** @return list<array{items: list<array<string, mixed>>, final: bool, last: int}> */
    private static function runAll(callable $list, int $size = 50): array
    {
        $run = ['id' => 'run', 'cursor' => 0];
        $batches = [];
        do {
            $batch = BatchPager::nextBatch($list, (int) $run['cursor'], $size);
            $batches[] = $batch;
            $run = BatchPager::accept($run, $batch, ['queued' => count($batch['items'])]);
        } while (!$batch['final']);
        return $batches;
    }

    public function testOneHundredTwentyItemsGoInThreeBatchesTheLastFinal(): void
    {
        // wp_id are 10, 20, … (the listing filters by wp_id, not by position).
        $list = static function (int $after, int $limit): array {
            $items = [];
            for ($id = 10; $id <= 1200 && count($items) < $limit; $id += 10) {
                if ($id > $after) {
                    $items[] = ['wp_id' => $id];
                }
            }
            return $items;
        };
        $batches = self::runAll($list);
        self::assertSame([50, 50, 20], array_map(static fn ($b) => count($b['items']), $batches));
        self::assertSame([false, false, true], array_column($batches, 'final'));
        self::assertSame([500, 1000, 1200], array_column($batches, 'last'));
    }

    public function testAMultipleOfTheBatchSizeMarksTheLastFullBatchFinal(): void
    {
        $list = self::site(100);
        $batches = self::runAll($list);
        self::assertSame([50, 50], array_map(static fn ($b) => count($b['items']), $batches));
        self::assertSame([false, true], array_column($batches, 'final'));
    }

    public function testAnEmptySiteSendsOneEmptyFinalBatch(): void
    {
        $batch = BatchPager::nextBatch(static fn () => [], 0);
        self::assertSame(['items' => [], 'final' => true, 'last' => 0], $batch);
    }

    public function testAListingThatReturnsTooManyIsCutToTheBatchSize(): void
    {
        $list = static fn (int $after, int $limit): array => $after >= 80
            ? []
            : array_map(static fn ($id) => ['wp_id' => $id], range($after + 1, $after + 80));
        $batch = BatchPager::nextBatch($list, 0, 50);
        self::assertCount(50, $batch['items']);
        self::assertSame(50, $batch['last']);
    }

    public function testRefusesAListingThatIsNotAscending(): void
    {
        $this->expectException(\UnexpectedValueException::class);
        BatchPager::nextBatch(static fn () => [['wp_id' => 5], ['wp_id' => 3]], 0);
    }

    public function testRefusesAListingThatRepeatsTheCursor(): void
    {
        $this->expectException(\UnexpectedValueException::class);
        BatchPager::nextBatch(static fn () => [['wp_id' => 7]], 7);
    }

    public function testRefusesABatchSizeAboveFifty(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        BatchPager::nextBatch(static fn () => [], 0, 51);
    }

    public function testTheCursorMovesOnlyWhenTheBatchIsAcceptedAndResumesThere(): void
    {
        $list = self::site(120);
        $run = ['id' => 'run-1', 'cursor' => 0];
        $first = BatchPager::nextBatch($list, 0);
        $run = BatchPager::accept($run, $first, ['queued' => 50, 'skipped_unchanged' => 0, 'deleted' => 0]);
        self::assertSame(500, $run['cursor']);
        // The second batch fails: nothing is accepted, so the next attempt lists the same batch.
        $second = BatchPager::nextBatch($list, (int) $run['cursor']);
        $again = BatchPager::nextBatch($list, (int) $run['cursor']);
        self::assertSame($second, $again);
        self::assertSame(510, $again['items'][0]['wp_id']);
        $run = BatchPager::accept($run, $again, ['queued' => 1, 'skipped_unchanged' => 49, 'deleted' => 0]);
        $third = BatchPager::nextBatch($list, (int) $run['cursor']);
        $run = BatchPager::accept($run, $third, ['queued' => 0, 'skipped_unchanged' => 20, 'deleted' => 2]);
        self::assertTrue($third['final']);
        $expected = ['cursor' => 0, 'id' => null, 'done' => true, 'sent' => 120, 'queued' => 51, 'skipped_unchanged' => 69, 'deleted' => 2];
        $actual = array_intersect_key($run, $expected);
        ksort($expected);
        ksort($actual);
        self::assertSame($expected, $actual);
    }

    public function testRunIdsAreFreshHex(): void
    {
        $a = BatchPager::newRunId();
        self::assertMatchesRegularExpression('/^[0-9a-f]{32}$/', $a);
        self::assertNotSame($a, BatchPager::newRunId());
    }
}
