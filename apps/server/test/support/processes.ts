// Spawns the real service and CLI (through tsx, on the sources) for black-box process tests.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root: the working directory of every spawned process. */
export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const MAIN_ENTRY = 'apps/server/src/main.ts';
export const CLI_ENTRY = 'apps/server/src/cli/main.ts';
const TSX_ARGS = ['--conditions=source', '--import', 'tsx'];

/** One parsed JSON log line. */
export type LogLine = Record<string, unknown>;

/** Reads a nested field of a parsed JSON value (undefined when any step is missing). */
export function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = Object.getOwnPropertyDescriptor(current, key)?.value;
  }
  return current;
}

/**
 * A clean environment: only what node needs plus `env`, so no APP_KEY, DATABASE_URL or
 * test-runner variable of this process leaks into the child.
 */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const value = process.env[key];
    if (value !== undefined) base[key] = value;
  }
  return { ...base, ...env };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Exit status of a child. */
export type ExitStatus = { code: number | null; signal: NodeJS.Signals | null };

/** A spawned `main.ts`: its parsed stdout log lines, its stderr, and its exit. */
export class ServiceProcess {
  readonly lines: LogLine[] = [];
  readonly rawStdout: string[] = [];
  stderr = '';
  exit: ExitStatus | null = null;
  readonly exited: Promise<ExitStatus>;
  private readonly child: ChildProcess;
  private partial = '';

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, [...TSX_ARGS, MAIN_ENTRY], {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => this.onStdout(chunk));
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  private onStdout(chunk: string): void {
    const parts = (this.partial + chunk).split('\n');
    this.partial = parts.pop() ?? '';
    for (const part of parts) {
      if (part.trim() === '') continue;
      this.rawStdout.push(part);
      try {
        const parsed: unknown = JSON.parse(part);
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
          this.lines.push(Object.fromEntries(Object.entries(parsed)));
        }
      } catch {
        // Not a log line; kept in rawStdout.
      }
    }
  }

  /** Waits (bounded) for a log line matching `match`; fails early if the process exits first. */
  async waitForLine(match: (line: LogLine) => boolean, timeoutMs = 60_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.lines.find(match);
      if (found) return found;
      if (this.exit) break;
      await sleep(50);
    }
    throw new Error(
      `no matching log line (exit ${JSON.stringify(this.exit)}):\n${this.rawStdout.join('\n')}\n${this.stderr}`,
    );
  }

  /** Waits for the "service listening" line and returns the URL it printed. */
  async waitForUrl(timeoutMs = 60_000): Promise<string> {
    const line = await this.waitForLine((entry) => typeof entry.url === 'string', timeoutMs);
    const url = field(line, 'url');
    if (typeof url !== 'string') throw new Error('no url');
    return url;
  }

  /** Waits (bounded) for the exit; SIGKILLs the child and fails when it takes too long. */
  async waitForExit(timeoutMs = 60_000): Promise<ExitStatus> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), timeoutMs);
    });
    const status = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    if (status) return status;
    this.kill();
    throw new Error(`process did not exit within ${timeoutMs} ms:\n${this.stderr}`);
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Hard-kills the child if it still runs (for after() hooks). */
  kill(): void {
    if (this.exit === null) this.child.kill('SIGKILL');
  }
}

/** Result of one finished CLI run. */
export type CliResult = { code: number | null; stdout: string; stderr: string };

/** Runs `cli/main.ts` with `args` to completion (killed after `timeoutMs`); `input` is piped to its stdin. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
  input?: string,
): Promise<CliResult> {
  return runNode([CLI_ENTRY, ...args], env, timeoutMs, input);
}

/** Runs a short-lived `main.ts` (one expected to exit by itself) to completion. */
export function runMain(env: Record<string, string>, timeoutMs = 60_000): Promise<CliResult> {
  return runNode([MAIN_ENTRY], env, timeoutMs);
}

function runNode(
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
  input?: string,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TSX_ARGS, ...args], {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end(input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not finish within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Parses a CLI `--json` answer: exactly one line of JSON on stdout. */
export function oneJsonLine(result: CliResult): unknown {
  assert.equal(result.code, 0, result.stderr);
  assert.ok(result.stdout.endsWith('\n'), result.stdout);
  const lines = result.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 1, result.stdout);
  return JSON.parse(lines[0] ?? '');
}

/** The sorted keys of an object (fails on anything else). */
export function keysOf(value: unknown): string[] {
  assert.ok(typeof value === 'object' && value !== null, `expected an object, got ${String(value)}`);
  return Object.keys(value).sort();
}

/** Asserts a string and returns it typed. */
export function text(value: unknown): string {
  assert.equal(typeof value, 'string', `expected a string, got ${JSON.stringify(value)}`);
  return String(value);
}
