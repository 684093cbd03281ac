/**
 * `panoptes/proxy`: the OpenAI-compatible proxy (`panoptes serve`) for agents in any language (docs/proxy.md): chat
 * completions, legacy completions, the Responses API and Anthropic Messages.
 * Loads Fastify and undici, so it is a subpath of its own and the core never imports it.
 * @module
 */
export {
  createProxy,
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_PROXY_HOST,
  DEFAULT_PROXY_PORT,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  SESSION_HEADER,
  type Proxy,
  type ProxyOptions,
  type ProxyWorkflow,
} from './server.js';
export { createProxyRules, isExplicitYes, MAX_OPEN_CALLS, type ProxyRules, type ProxyRulesOptions } from './rules/index.js';
export { modelGlob, proxyKeyId, type WorkflowSelector } from './workflows/index.js';
export { namedSessionOf, type SessionSource } from './session-id.js';
export { BASE_PATH, MONITORED_ROUTES, normaliseTarget, type MonitoredRoute, type NormalisedTarget } from './request-path.js';
export { memoryResponseRecords, type ResponseRecord, type ResponseRecords, type WithheldCall } from './routes/responses/response-records.js';
export { FORWARDED_HEADER_PREFIXES, FORWARDED_HEADERS } from './upstream.js';
export { proxyError, type ErrorFormat, type ProxyError, type ProxyErrorType } from './errors.js';
export { PROXY_KEY_HEADER } from './upstream.js';
export { DURATION_BUCKETS_S, MAX_MODEL_LABELS, PROXY_METRICS } from './metrics.js';
export { REQUEST_ATTR, type Outcome } from './request-telemetry.js';
export { type RateLimitSettings } from './rate-limit.js';
export { startTelemetry, telemetryWanted, type ProxyTelemetry, type TelemetryExporters, type TelemetrySettings } from './otel.js';
export { StreamGate, type StreamEnd } from './stream-gate.js';
export { chatRequestProblem, toChatMessages, turnOf, withEdits } from './translate.js';
export { formatConfigError, loadServeConfig, ProxyConfigError, type ServeConfig, type ServeConfigSources } from './config.js';
export { startServe, type RunningProxy } from './serve.js';
export { createProxyJudge, endpointJudgeModel, judgeFromConfig, type EndpointJudgeModelOptions, type ProxyJudge } from './judge/index.js';
export { MAX_SERVE_JUDGE_TIMEOUT_MS, type ServeJudgeConfig, type ServeJudgeModel } from './config/judge.js';
