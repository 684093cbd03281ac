export { ATTR, EVENT, INSTRUMENTATION_SCOPE, METRIC, OPERATION, SPAN } from './names.js';
export { DEFAULT_SECRET_PATTERNS, REDACTED, redactSecrets, secretPatterns } from './redact.js';
export { createTelemetry, telemetryOptionsOf, type Telemetry, type TelemetryOptions } from './telemetry.js';
export { classificationAttributes, countEffects, guardrailMarkers, loopAttributes, recordEffects, recordIntervention, withheldAttributes, type LoopReportLike } from './decisions.js';
export { instrumentLoopDetector } from './loops.js';
