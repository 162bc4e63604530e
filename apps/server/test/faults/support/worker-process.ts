// A `cli worker` process (PostgreSQL) for the fault tests: its JSON log lines come on stderr.
import { type ChildProcess, spawn } from 'node:child_process';
import { CLI_ENTRY, childEnv, type ExitStatus, type LogLine, ROOT } from '../../support/processes.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class WorkerProcess {
  readonly lines: LogLine[] = [];
  raw = '';
  exit: ExitStatus | null = null;
  readonly exited: Promise<ExitStatus>;
  private readonly child: ChildProcess;
  private partial = '';

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', CLI_ENTRY, 'worker'], {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.raw += chunk;
      const parts = (this.partial + chunk).split('\n');
      this.partial = parts.pop() ?? '';
      for (const part of parts) {
        try {
          const parsed: unknown = JSON.parse(part);
          if (typeof parsed === 'object' && parsed !== null)
            this.lines.push(Object.fromEntries(Object.entries(parsed)));
        } catch {
          // not a log line
        }
      }
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  /** How many log lines match. */
  count(match: (line: LogLine) => boolean): number {
    return this.lines.filter(match).length;
  }

  /** Waits (bounded) until `count` lines match; fails early if the process exits. */
  async waitFor(match: (line: LogLine) => boolean, count = 1, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.count(match) >= count) return;
      if (this.exit) break;
      await sleep(20);
    }
    throw new Error(
      `worker: fewer than ${count} matching lines (exit ${JSON.stringify(this.exit)}):\n${this.raw.slice(-4000)}`,
    );
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  kill(): void {
    if (this.exit === null) this.child.kill('SIGKILL');
  }
}
