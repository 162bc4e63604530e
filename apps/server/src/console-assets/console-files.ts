import { readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';

/** A built console file ready to send. */
export type ConsoleFile = { body: Buffer; type: string };

/** Content types of the files a Vite build of the console holds. */
const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** One path segment of a built file: no dots-only names, no separators, no encoded tricks. */
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/**
 * Reads the built admin console from `distDir` (Vite's output: `index.html`, hashed files in
 * `assets/`, a few unhashed public files beside index.html). Only a file name of one plain
 * segment with a known type is ever read, so no request reaches outside the folder. index.html
 * is re-read when it changes (a new build is served without a restart); hashed files are cached
 * by name, since their content never changes.
 */
export function consoleFiles(distDir: string) {
  let index: { mtimeMs: number; body: Buffer } | null = null;
  const hashed = new Map<string, ConsoleFile>();

  async function read(path: string): Promise<ConsoleFile | null> {
    const type = TYPES[extname(path)];
    if (!type) return null;
    try {
      return { body: await readFile(path), type };
    } catch {
      return null;
    }
  }

  return {
    /** index.html, or null when the console has not been built. */
    async index(): Promise<Buffer | null> {
      try {
        const path = join(distDir, 'index.html');
        const { mtimeMs } = await stat(path);
        if (index?.mtimeMs !== mtimeMs) index = { mtimeMs, body: await readFile(path) };
        return index.body;
      } catch {
        index = null;
        return null;
      }
    },
    /** A hashed file of `assets/` (immutable), or null. */
    async asset(name: string): Promise<ConsoleFile | null> {
      if (!FILE_NAME.test(name)) return null;
      const cached = hashed.get(name);
      if (cached) return cached;
      const file = await read(join(distDir, 'assets', name));
      if (file) hashed.set(name, file);
      return file;
    },
    /** An unhashed file beside index.html (the icon), or null; never index.html itself. */
    async publicFile(name: string): Promise<ConsoleFile | null> {
      if (!FILE_NAME.test(name) || name === 'index.html') return null;
      return read(join(distDir, name));
    },
  };
}

/** The console files of one service. */
export type ConsoleFiles = ReturnType<typeof consoleFiles>;
