/**
 * Test doubles for code that uses Panoptes: a controllable clock and an embedder whose similarities a test chooses,
 * and the property test a constraint type of your own must pass.
 * @module panoptes/testing
 */
export { createFakeClock, type FakeClock } from './fake-clock.js';
export { createFakeEmbedder, type FakeEmbedder, type FakeEmbedderOptions } from './fake-embedder.js';
export {
  assertConstraintType,
  checkConstraintType,
  type CheckConstraintTypeOptions,
  type ConstraintTypeCheckResult,
  type ConstraintTypeCounterexample,
} from './check-constraint-type.js';
