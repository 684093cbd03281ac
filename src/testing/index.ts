/**
 * Test doubles for code that uses Panoptes: a controllable clock and an embedder whose similarities a test chooses.
 * @module panoptes/testing
 */
export { createFakeClock, type FakeClock } from './fake-clock.js';
export { createFakeEmbedder, type FakeEmbedder, type FakeEmbedderOptions } from './fake-embedder.js';
