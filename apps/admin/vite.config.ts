import preact from '@preact/preset-vite';
import { defaultClientConditions, defineConfig } from 'vite';

// The console is served by the service at /admin/: hashed files under /admin/assets/, an
// index.html that names them. No inline script or style anywhere (the console's CSP forbids
// both), so the module-preload polyfill, which Vite would otherwise add, stays out.
export default defineConfig({
  base: '/admin/',
  plugins: [preact({ prerender: { enabled: false } })],
  resolve: {
    // `source`: read packages/contract from its TypeScript, as the rest of the repository does.
    conditions: ['source', ...defaultClientConditions],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    // dist/.vite/manifest.json: which chunk a route loads (bench/ reads it for the size budget).
    manifest: true,
  },
  server: {
    // `npm run dev -w apps/admin`: the API comes from a service on PORT 3000.
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
});
