/** `panoptes serve` configuration of readiness, rate limits and OpenTelemetry export: file, variables, and errors. */
import { describe, expect, it } from 'vitest';
import { loadServeConfig } from '../../src/proxy/config.js';
import { configFile, errorOf } from './config-helpers.js';

const BASE = 'upstream: http://127.0.0.1:8000/v1\nworkflow: support.yaml\n';

describe('production keys', () => {
  it('reads ready_when_degraded, rate_limit and telemetry from the file; variables override them', async () => {
    const path = configFile(`${BASE}ready_when_degraded: true\nrate_limit:\n  max: 60\n  window_ms: 60000\ntelemetry:\n  endpoint: http://collector:4318\n  service_name: support-proxy\n  metrics: false\n  metric_interval_ms: 5000\n`);
    const config = await loadServeConfig({ configPath: path, env: {} });
    expect(config).toMatchObject({ readyWhenDegraded: true, rateLimit: { max: 60, windowMs: 60_000 }, telemetry: { endpoint: 'http://collector:4318', serviceName: 'support-proxy', metrics: false, metricIntervalMs: 5000 } });
    const overridden = await loadServeConfig({ configPath: path, env: { PANOPTES_RATE_LIMIT__MAX: '5', PANOPTES_TELEMETRY__TRACES: 'false', PANOPTES_READY_WHEN_DEGRADED: 'false' } });
    expect(overridden).toMatchObject({ readyWhenDegraded: false, rateLimit: { max: 5, windowMs: 60_000 }, telemetry: { traces: false } });
    const bare = await loadServeConfig({ configPath: configFile(BASE), env: {} });
    expect([bare.readyWhenDegraded, bare.rateLimit, bare.telemetry]).toEqual([undefined, undefined, undefined]);
  });

  it('refuses half a rate limit, at the line of the half that is there', async () => {
    const path = configFile(`${BASE}rate_limit:\n  max: 60\n`);
    expect(await errorOf(loadServeConfig({ configPath: path, env: {} }))).toContain(`${path}:4:8 error rate_limit.window_ms: 'rate_limit.window_ms' is required with 'rate_limit.max'; set both: rate_limit: { max: 60, window_ms: 60000 } is 60 requests a minute per caller (PANOPTES_RATE_LIMIT__WINDOW_MS)`);
  });

  it('names a bad value and an unknown variable of these sections', async () => {
    const path = configFile(`${BASE}rate_limit: { max: 0, window_ms: 1000 }\ntelemetry:\n  endpoint: collector\n  sampling: 0.5\n`);
    const message = await errorOf(loadServeConfig({ configPath: path, env: { PANOPTES_TELEMETRY__ENDPIONT: 'http://x:4318' } }));
    expect(message).toContain(`${path}:3:20 error rate_limit.max: out of range: received 0; expected a positive whole number`);
    expect(message).toContain(`${path}:5:13 error telemetry.endpoint: not a URL: received "collector"; expected an http(s) URL, e.g. http://127.0.0.1:4318`);
    expect(message).toContain(`${path}:6:3 error telemetry.sampling: unknown key 'telemetry.sampling'`);
    expect(message).toContain('environment error PANOPTES_TELEMETRY__ENDPIONT: unknown variable PANOPTES_TELEMETRY__ENDPIONT; did you mean PANOPTES_TELEMETRY__ENDPOINT?');
  });
});
