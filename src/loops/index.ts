/**
 * Loop detection: structural checks over a session's steps, a semantic check over their
 * embeddings, hints that escalate to a stop, fail-open throughout.
 */
export { createLoopDetector } from './loop-detector.js';
export { DEFAULT_LOOP_WARM_UP_TIMEOUT_MS } from './embedding.js';
export {
  DEFAULT_ALTERNATION,
  DEFAULT_CONDENSATION,
  DEFAULT_LOOP_ESCALATION,
  DEFAULT_LOOP_MAX_SESSIONS,
  DEFAULT_LOOP_THRESHOLD,
  DEFAULT_LOOP_TTL_MS,
  DEFAULT_LOOP_WINDOW,
  DEFAULT_MONOLOGUE,
  DEFAULT_REPEATED_ACTION,
  DEFAULT_REPEATED_ACTION_WARNING,
  DEFAULT_REPEATED_ERROR,
  DEFAULT_REPEATED_LINE,
  DEFAULT_REPEATED_TEXT,
  DEFAULT_TOOL_CYCLE,
  DEFAULT_UNCHANGED_RESULT,
  DEFAULT_UNKNOWN_TOOL,
  type LongWindowOptions,
  type LoopDetectorOptions,
  type LoopMissCounter,
} from './options.js';
export { DEFAULT_LONG_WINDOW_HNSW } from './long-window.js';
export { DEFAULT_LOOP_HINT, DEFAULT_LOOP_STOP_MESSAGE, DEFAULT_LOOP_STRONGER_HINT } from './hints.js';
export { DEFAULT_VOLATILE_PATTERNS, VOLATILE_PLACEHOLDER } from './normalize.js';
export { LoopDetectedError } from './loop-detected-error.js';
export type { StreamWatch } from './stream-watch.js';
export { loopStepsFromMessages, toolResultsAfterLastTurn } from './from-messages.js';
export type {
  LoopAction,
  LoopCallEvidence,
  LoopDetector,
  LoopEvidence,
  LoopFinding,
  LoopHint,
  LoopKind,
  LoopObserveOptions,
  LoopReport,
  LoopStep,
  LoopToolResult,
} from './types.js';
