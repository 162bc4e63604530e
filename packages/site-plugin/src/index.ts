// The site-side SDK of the chat agent service. See packages/site-plugin/README.md.
export * from './adapters/fastify.js';
export * from './adapters/fetch.js';
export * from './adapters/node.js';
export * from './content-hash.js';
export * from './memory-store.js';
export * from './plugin.js';
export * from './shopper-token.js';
export * from './signature.js';
export * from './site-store.js';
export * from './sync-client.js';
export * from './sync-error.js';
