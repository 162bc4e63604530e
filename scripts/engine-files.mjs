// Which test files the database engine can change: those that read the test database's settings
// (TEST_DATABASE_URL, TEST_PG_TEMPLATE, TEST_ENGINE) themselves or through the files they import
// by relative path (test support, scripts), followed transitively. The service's own sources
// (any path with a `src` directory) are not followed: they never read those settings, so a test
// that only imports them, or starts the service as a process of its own, runs on the embedded
// store whatever TEST_DATABASE_URL says, and a second pass on PostgreSQL would repeat it. A file
// that names the settings only to set them aside carries the line `// engine-files: embedded only`.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';

/**
 * A file that names those settings only to set them aside (a child process made to run on the
 * embedded store, a comment) says so on a line of its own, and is then not kept.
 */
export const EMBEDDED_ONLY = /^\/\/ engine-files: embedded only\b/m;
/** What marks a file as choosing its engine from the environment. */
export const ENGINE_SETTINGS = /\b(TEST_DATABASE_URL|TEST_PG_TEMPLATE|TEST_ENGINE)\b/;
const IMPORT = /\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** The file a relative import names: the TypeScript source behind a `.js` specifier, or as written. */
function resolveImport(from, specifier) {
  const written = resolve(dirname(from), specifier);
  const candidates = [written, written.replace(/\.js$/, '.ts'), written.replace(/\.mjs$/, '.mts')];
  return candidates.find((path) => existsSync(path) && !path.endsWith('.d.mts')) ?? null;
}

/** A checker that remembers what it read: `dependsOnEngine(file)` for absolute paths. */
export function engineDependence() {
  const known = new Map();
  const dependsOnEngine = (file) => {
    const seen = known.get(file);
    if (seen !== undefined) return seen;
    known.set(file, false); // an import cycle reads as "not through here"
    const text = readFileSync(file, 'utf8');
    if (EMBEDDED_ONLY.test(text)) return false;
    let depends = ENGINE_SETTINGS.test(text);
    for (const match of depends ? [] : text.matchAll(IMPORT)) {
      const target = resolveImport(file, match[1] ?? match[2]);
      if (!target || target.split(sep).includes('src')) continue;
      if (dependsOnEngine(target)) {
        depends = true;
        break;
      }
    }
    known.set(file, depends);
    return depends;
  };
  return dependsOnEngine;
}
