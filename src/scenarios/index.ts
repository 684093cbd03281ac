/**
 * Scenario files: conversations with the verdicts, refusals and loops a team expects, run through the
 * monitor and the sentinel as a regression gate. Backs `panoptes test`.
 * @module
 */
export { parseScenario } from './parse.js';
export { loadScenarios } from './load.js';
export { runScenarios, type RunScenariosOptions } from './run.js';
export { compareExpectations } from './compare.js';
export { renderJUnit } from './junit.js';
export { renderScenarioText, type ScenarioPaint } from './render-text.js';
export type {
  Scenario,
  ScenarioCoverage,
  ScenarioExpectations,
  ScenarioMismatch,
  ScenarioReport,
  ScenarioResult,
  ScenarioRules,
  ToolFixture,
} from './types.js';
