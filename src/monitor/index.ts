export { createMonitor } from './monitor.js';
export { syncFirst, type SyncFirstMonitor } from './sync-first.js';
export type { Logger, MissCause } from './fail-open.js';
export type {
  AfterModelResult,
  BeforeModelResult,
  BeforeToolResult,
  Monitor,
  MonitorEvents,
  MonitorOptions,
  MonitorSession,
  PendingToolState,
  SessionReport,
  StepRecord,
  ToolGuard,
  ToolGuardVerdict,
} from './types.js';
