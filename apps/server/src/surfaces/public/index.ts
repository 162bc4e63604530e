import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import type { WidgetAssets } from '../../widget-assets/widget-manifest.js';
import { demoRoutes } from './demo.route.js';
import { publicKbRoutes } from './kb.route.js';
import { kbAssetRoutes } from './kb-assets.route.js';
import { widgetAssetRoutes } from './widget-assets.route.js';

/**
 * Where the public pages and files are mounted: the root, since their paths are the public
 * addresses themselves (`/kb/…` from `KB_PATH`, `/kb-assets/…`, `/widget/…` from the widget manifest, `/demo`).
 */
export const PUBLIC_PREFIX = '';

/** The public surface: the published knowledge base, the widget bundle and locales, the demo page; no auth. */
export function publicSurface(deps: AppDeps, assets: WidgetAssets) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(publicKbRoutes(deps, assets));
    await app.register(kbAssetRoutes());
    await app.register(widgetAssetRoutes(assets));
    await app.register(demoRoutes(deps, assets));
  };
}
