/**
 * The production keys of `panoptes serve`'s configuration: readiness, rate limits and OpenTelemetry export. Kept apart
 * from config.ts, which reads and checks them with the others.
 * @module
 */
import type { RateLimitSettings } from '../rate-limit.js';
import type { TelemetrySettings } from '../otel.js';

/** The keys, each with its kind and `PANOPTES_*` variable (nested keys: `SECTION__KEY`). */
export const PRODUCTION_FIELDS = {
  ready_when_degraded: { kind: 'boolean', env: 'PANOPTES_READY_WHEN_DEGRADED' },
  'rate_limit.max': { kind: 'positive-integer', env: 'PANOPTES_RATE_LIMIT__MAX' },
  'rate_limit.window_ms': { kind: 'positive-integer', env: 'PANOPTES_RATE_LIMIT__WINDOW_MS' },
  'telemetry.endpoint': { kind: 'url', env: 'PANOPTES_TELEMETRY__ENDPOINT' },
  'telemetry.service_name': { kind: 'string', env: 'PANOPTES_TELEMETRY__SERVICE_NAME' },
  'telemetry.traces': { kind: 'boolean', env: 'PANOPTES_TELEMETRY__TRACES' },
  'telemetry.metrics': { kind: 'boolean', env: 'PANOPTES_TELEMETRY__METRICS' },
  'telemetry.metric_interval_ms': { kind: 'positive-integer', env: 'PANOPTES_TELEMETRY__METRIC_INTERVAL_MS' },
} as const;

/** The sections the production keys live in. */
export const PRODUCTION_SECTIONS = ['rate_limit', 'telemetry'] as const;

export type ProductionField = keyof typeof PRODUCTION_FIELDS;

/** What the production keys add to the checked configuration; each only when set. */
export interface ProductionConfig {
  /** `GET /readyz` answers 200 while the session store does not answer. */
  readyWhenDegraded?: boolean;
  rateLimit?: RateLimitSettings;
  telemetry?: TelemetrySettings;
}

/**
 * The production part of the checked configuration, from the checked values (`has`, `get` by key).
 * @returns the settings, or the problem of a section set by halves (`rate_limit` needs both keys).
 */
export function productionConfig(has: (name: ProductionField) => boolean, get: (name: ProductionField) => unknown): ProductionConfig | { missing: ProductionField; with: ProductionField } {
  const config: ProductionConfig = {};
  if (has('ready_when_degraded')) config.readyWhenDegraded = get('ready_when_degraded') as boolean;
  if (has('rate_limit.max') !== has('rate_limit.window_ms')) return has('rate_limit.max') ? { missing: 'rate_limit.window_ms', with: 'rate_limit.max' } : { missing: 'rate_limit.max', with: 'rate_limit.window_ms' };
  if (has('rate_limit.max')) config.rateLimit = { max: get('rate_limit.max') as number, windowMs: get('rate_limit.window_ms') as number };
  const telemetry: TelemetrySettings = {};
  if (has('telemetry.endpoint')) telemetry.endpoint = get('telemetry.endpoint') as string;
  if (has('telemetry.service_name')) telemetry.serviceName = get('telemetry.service_name') as string;
  if (has('telemetry.traces')) telemetry.traces = get('telemetry.traces') as boolean;
  if (has('telemetry.metrics')) telemetry.metrics = get('telemetry.metrics') as boolean;
  if (has('telemetry.metric_interval_ms')) telemetry.metricIntervalMs = get('telemetry.metric_interval_ms') as number;
  if (Object.keys(telemetry).length > 0) config.telemetry = telemetry;
  return config;
}
