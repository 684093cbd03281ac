/** Closing what holds sessions: refuse later calls with a ClosedError, wait for those in flight, flush. */
export { createLifecycle, flushTelemetry, TELEMETRY_FLUSH_TIMEOUT_MS } from './lifecycle.js';
