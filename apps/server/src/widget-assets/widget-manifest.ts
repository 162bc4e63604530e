import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** The bundle's stable public path (contract "Versioning"); `?v=<hash>` only busts caches. */
export const WIDGET_BUNDLE_PATH = '/widget/widget.js';

/** Where the widget's locale files are served: `{WIDGET_LOCALES_PATH}/{tag}.json`. */
export const WIDGET_LOCALES_PATH = '/widget/locales';

const ZHash = z.string().regex(/^[0-9a-f]{8,64}$/);
const ZFile = z
  .string()
  .regex(/^[A-Za-z0-9._/-]+$/)
  .refine((file) => !file.split('/').includes('..'));

/** The widget build's manifest: the hashed bundle and the locale files (written by apps/widget). */
const ZManifest = z.object({
  widget: z.object({ file: ZFile, hash: ZHash, bytes: z.number().int().optional() }),
  locales: z.record(z.string(), z.object({ file: ZFile, hash: ZHash })).default({}),
});
export type WidgetManifest = z.infer<typeof ZManifest>;

/** A built file ready to send: its bytes and its strong validator. */
export type WidgetAsset = { body: Buffer; hash: string };

/**
 * Reads the widget build from `distDir`. The manifest is re-read when its modification time
 * changes (a new build is served without a restart); files are cached by name, since hashed
 * names never change content.
 */
export function widgetAssets(distDir: string) {
  let cached: { mtimeMs: number; manifest: WidgetManifest } | null = null;
  const files = new Map<string, Buffer>();

  async function manifest(): Promise<WidgetManifest | null> {
    try {
      const path = join(distDir, 'manifest.json');
      const { mtimeMs } = await stat(path);
      if (cached?.mtimeMs !== mtimeMs) {
        cached = { mtimeMs, manifest: ZManifest.parse(JSON.parse(await readFile(path, 'utf8'))) };
      }
      return cached.manifest;
    } catch {
      return null;
    }
  }

  async function file(name: string, hash: string): Promise<WidgetAsset | null> {
    let body = files.get(name);
    if (!body) {
      try {
        body = await readFile(join(distDir, name));
      } catch {
        return null;
      }
      files.set(name, body);
    }
    return { body, hash };
  }

  return {
    manifest,
    /** The current bundle, or null when the widget is not built. */
    async bundle(): Promise<WidgetAsset | null> {
      const current = await manifest();
      return current ? file(current.widget.file, current.widget.hash) : null;
    },
    /** A locale's UI strings (`pt-br`, `en`), or null when the build has no such locale. */
    async locale(tag: string): Promise<WidgetAsset | null> {
      const entry = (await manifest())?.locales[tag.toLowerCase()];
      return entry ? file(entry.file, entry.hash) : null;
    },
  };
}

/** The widget assets of one service. */
export type WidgetAssets = ReturnType<typeof widgetAssets>;
