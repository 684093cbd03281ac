export { createMonitor } from './monitor.js';
export { syncFirst, type SyncFirstMonitor } from './sync-first.js';
export { lazyModelRequest } from './lazy-request.js';
export { warnSafely, type Logger, type MissCause } from './fail-open.js';
export type {
  AfterModelResult,
  BeforeModelResult,
  BeforeToolResult,
  ModelRequest,
  Monitor,
  MonitorEvents,
  MonitorOptions,
  MonitorSession,
  PendingToolState,
  SessionReport,
  ShadowDisagreementSummary,
  StepRecord,
  ToolGuard,
  ToolGuardVerdict,
} from './types.js';
