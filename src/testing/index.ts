/**
 * Test doubles for code that uses Panoptes: a controllable clock, and later fake embedders and scripted transcripts.
 * @module panoptes/testing
 */
export { createFakeClock, type FakeClock } from './fake-clock.js';
