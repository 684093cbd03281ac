/**
 * Extension points: constraint types, intervention strategies and classification tiers of your own, and the
 * registries that scope them.
 * @module
 */
export { createRegistry, defaultRegistry, extensionsOf, isRegistry, type Extension, type Registry } from './registry.js';
export { registryOf } from './compile.js';
