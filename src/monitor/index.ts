export { createMonitor } from './create.js';
export { DEFAULT_SELECT_TIMEOUT_MS } from './workflows-monitor.js';
export type { WorkflowsMonitor, WorkflowsMonitorOptions } from './workflows-types.js';
export { syncFirst, type SyncFirstMonitor } from './sync-first.js';
export { lazyModelRequest } from './lazy-request.js';
export { warnSafely, type Logger, type MissCause } from './fail-open.js';
export { assertOnViolatingText, settleAnswer, type SettledAnswer, type ViolatingTextHost } from './violating-text.js';
export { TEXT_WATCH_WINDOW } from './text-watch.js';
export type { NextMove, NextStateInput, NextStates } from './next-states.js';
export type { HistoryEntry, SessionHistory } from './history.js';
export type { DecisionLine } from './debug-log.js';
export type {
  AfterModelOptions,
  AfterModelResult,
  BeforeModelResult,
  BeforeToolResult,
  ModelRequest,
  Monitor,
  MonitorEvents,
  MonitorOptions,
  MonitorSession,
  OnViolatingText,
  PendingToolState,
  SessionReport,
  ShadowDisagreementSummary,
  StepRecord,
  TextWatch,
  ToolGuard,
  ToolGuardVerdict,
  WithheldResponse,
} from './types.js';
