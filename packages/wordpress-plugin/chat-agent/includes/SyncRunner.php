<?php

declare(strict_types=1);

namespace ChatAgent;

/**
 * The full sync as a background queue on WP-Cron: hook `chat_agent_sync_batch` sends one batch of
 * at most 50 items per run and schedules the next. The state (option chat_agent_sync_state) keeps,
 * per kind, the run id and the cursor, so an interrupted sync resumes after the last accepted batch.
 */
final class SyncRunner
{
    public const HOOK = 'chat_agent_sync_batch';
    private const LOCK = 'chat_agent_sync_lock';
    private const MAX_RETRIES = 6;

    /** Starts a full sync (or resumes an interrupted one); a sync already running is left alone. */
    public static function start(): array
    {
        $state = Options::syncState();
        if (($state['status'] ?? 'idle') === 'running') {
            self::schedule(0);
            return $state;
        }
        $kinds = ['posts'];
        if (Options::commerceActive()) {
            $kinds[] = 'products';
            $kinds[] = 'coupons';
        }
        $saved = is_array($state['runs'] ?? null) ? $state['runs'] : [];
        $runs = [];
        $total = 0;
        foreach (array_intersect(['posts', 'products'], $kinds) as $kind) {
            $run = is_array($saved[$kind] ?? null) ? $saved[$kind] : [];
            $resumable = !empty($run['id']) && (int) ($run['cursor'] ?? 0) > 0 && empty($run['done']);
            $runs[$kind] = $resumable ? $run : ['id' => null, 'cursor' => 0];
            $runs[$kind]['done'] = false;
            $runs[$kind]['total'] = Records::count($kind);
            $total += $runs[$kind]['total'];
        }
        $state['status'] = 'running';
        // A full sync re-sends everything, failed deltas included: earlier failures are history.
        $state['failures'] = [];
        $state['kinds'] = $kinds;
        $state['runs'] = $runs;
        $state['total'] = $total;
        $state['retries'] = 0;
        $state['started_at'] = time();
        $state['finished_at'] = null;
        $state['last_error'] = '';
        Options::saveSyncState($state);
        self::schedule(0);
        return $state;
    }

    /** Schedules the next batch `$delay` seconds from now (once). */
    public static function schedule(int $delay): void
    {
        if (wp_next_scheduled(self::HOOK) === false) {
            wp_schedule_single_event(time() + $delay, self::HOOK);
        }
    }

    /**
     * A running sync whose next batch is not scheduled (the request that ran the last one died)
     * gets it scheduled again; the lock keeps a batch from running twice.
     */
    public static function ensureScheduled(): void
    {
        if ((Options::syncState()['status'] ?? '') === 'running') {
            self::schedule(0);
        }
    }

    /** The WP-Cron handler: one batch, then the next one is scheduled. */
    public static function runBatch(): void
    {
        if (!self::lock()) {
            return;
        }
        try {
            self::step();
        } finally {
            delete_option(self::LOCK);
        }
    }

    private static function step(): void
    {
        $state = Options::syncState();
        if (($state['status'] ?? 'idle') !== 'running') {
            return;
        }
        if (!Options::isConfigured()) {
            self::fail($state, __('The plugin is not configured: save the service URL and token, then pick an agent.', 'chat-agent'));
            return;
        }
        $kinds = is_array($state['kinds'] ?? null) ? array_values($state['kinds']) : [];
        $kind = $kinds[0] ?? null;
        if ($kind === null) {
            self::finish($state);
            return;
        }
        $client = ServiceClient::fromOptions();
        $agentId = Options::agentId();
        try {
            if ($kind === 'coupons') {
                $client->send('coupons/sync', $agentId, ['coupons' => Records::coupons()]);
                array_shift($kinds);
            } else {
                $run = is_array($state['runs'][$kind] ?? null) ? $state['runs'][$kind] : ['cursor' => 0];
                if (empty($run['id'])) {
                    $run['id'] = BatchPager::newRunId();
                    $state['runs'][$kind] = $run;
                    Options::saveSyncState($state);
                }
                $list = $kind === 'products' ? [Records::class, 'listProducts'] : [Records::class, 'listPosts'];
                $batch = BatchPager::nextBatch($list, (int) ($run['cursor'] ?? 0));
                $result = $client->send($kind . '/sync', $agentId, [
                    $kind => $batch['items'],
                    'full_sync' => ['id' => $run['id'], 'final' => $batch['final']],
                ]);
                $state = Options::syncState();
                $state['runs'][$kind] = BatchPager::accept($run, $batch, $result);
                foreach (is_array($result['failures'] ?? null) ? $result['failures'] : [] as $failure) {
                    $state['failures'][] = [
                        'time' => time(),
                        'what' => $kind . ' wp_id ' . (int) ($failure['wp_id'] ?? 0),
                        'message' => (string) ($failure['reason'] ?? ''),
                    ];
                }
                if ($batch['final']) {
                    array_shift($kinds);
                }
            }
        } catch (ServiceError $error) {
            self::retryLater(Options::syncState(), $kind, $error);
            return;
        } catch (\Throwable $error) {
            Options::addFailure($kind, $error->getMessage());
            self::fail(Options::syncState(), $error->getMessage());
            return;
        }
        $state['kinds'] = $kinds;
        $state['retries'] = 0;
        $state['last_error'] = '';
        if ($kinds === []) {
            self::finish($state);
            return;
        }
        Options::saveSyncState($state);
        self::schedule(0);
    }

    /** @param array<string, mixed> $state */
    private static function retryLater(array $state, string $kind, ServiceError $error): void
    {
        $retries = (int) ($state['retries'] ?? 0) + 1;
        $failures = is_array($state['failures'] ?? null) ? $state['failures'] : [];
        $failures[] = ['time' => time(), 'what' => $kind, 'message' => $error->getMessage()];
        $state['failures'] = array_slice($failures, -50);
        $state['retries'] = $retries;
        $state['last_error'] = $error->getMessage();
        if (!$error->isRetryable() || $retries >= self::MAX_RETRIES) {
            self::fail($state, $error->getMessage());
            return;
        }
        Options::saveSyncState($state);
        self::schedule(RetryPolicy::cronBackoff($retries, $error->retryAfter));
    }

    /** @param array<string, mixed> $state */
    private static function fail(array $state, string $message): void
    {
        $state['status'] = 'failed';
        $state['last_error'] = $message;
        $state['finished_at'] = time();
        Options::saveSyncState($state);
    }

    /** @param array<string, mixed> $state */
    private static function finish(array $state): void
    {
        $state['status'] = 'done';
        $state['kinds'] = [];
        $state['finished_at'] = time();
        Options::saveSyncState($state);
    }

    /** A lock so two cron requests never send the same batch; stale after two minutes. */
    private static function lock(): bool
    {
        if (add_option(self::LOCK, (string) time(), '', 'no')) {
            return true;
        }
        $since = (int) get_option(self::LOCK, '0');
        if ($since > 0 && time() - $since > 120) {
            delete_option(self::LOCK);
            return (bool) add_option(self::LOCK, (string) time(), '', 'no');
        }
        return false;
    }

    /**
     * What the settings page shows: `{status, sent, total, percent, failures}`.
     *
     * @return array<string, mixed>
     */
    public static function status(): array
    {
        $state = Options::syncState();
        $sent = 0;
        $total = 0;
        $counts = ['queued' => 0, 'skipped_unchanged' => 0, 'deleted' => 0];
        foreach (is_array($state['runs'] ?? null) ? $state['runs'] : [] as $run) {
            if (!is_array($run)) {
                continue;
            }
            $sent += (int) ($run['sent'] ?? 0);
            $total += (int) ($run['total'] ?? 0);
            foreach ($counts as $key => $value) {
                $counts[$key] = $value + (int) ($run[$key] ?? 0);
            }
        }
        $status = in_array($state['status'] ?? '', ['running', 'done', 'failed'], true) ? $state['status'] : 'idle';
        $percent = $status === 'done' ? 100 : ($total > 0 ? min(99, (int) floor($sent * 100 / $total)) : 0);
        $failures = [];
        foreach (is_array($state['failures'] ?? null) ? $state['failures'] : [] as $failure) {
            $failures[] = [
                'time' => gmdate('c', (int) ($failure['time'] ?? 0)),
                'what' => (string) ($failure['what'] ?? ''),
                'message' => (string) ($failure['message'] ?? ''),
            ];
        }
        return array_merge([
            'status' => $status,
            'sent' => $sent,
            'total' => max($total, $sent),
            'percent' => $percent,
            'failures' => array_reverse($failures),
            'last_error' => (string) ($state['last_error'] ?? ''),
        ], $counts);
    }
}
