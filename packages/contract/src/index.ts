export * from './abilities.js';
export * from './account.js';
export * from './agent.js';
export * from './api-token.js';
export * from './envelopes.js';
export * from './errors.js';
export * from './origin.js';
