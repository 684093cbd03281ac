/**
 * Starts a proxy from a checked configuration: the workflow, the session store (Redis when configured), the monitor
 * and the server. What `panoptes serve` runs, and usable as is for embedding.
 * @module
 */
import { createMonitor } from '../monitor/index.js';
import type { Logger, MonitorSession } from '../monitor/index.js';
import { loadRulebase, type Rulebase } from '../rules/index.js';
import { loadWorkflow } from '../workflow/index.js';
import { workflowNamespace } from '../workflow-choice/index.js';
import type { ServeConfig } from './config.js';
import { createProxyRules } from './rules/index.js';
import { createServeEmbedder, semanticMonitorOptions } from './semantic-tier.js';
import { startTelemetry, type TelemetryExporters } from './otel.js';
import { createProxy, type Proxy, type ProxyWorkflow } from './server.js';
import { judgeFromConfig } from './judge/index.js';
import type { Judge } from '../judge/index.js';

/** A running proxy: its URL, and `close` to drain and stop it. */
export interface RunningProxy {
  url: string;
  port: number;
  proxy: Proxy;
  close(): Promise<void>;
}

/**
 * Loads the workflows and rulebases, starts OpenTelemetry export when asked for, connects the store and starts
 * listening. Redis that does not answer at start is not fatal: the proxy starts degraded (fail-open) and the client
 * keeps reconnecting. Each workflow but the default keeps its sessions under a key prefix of its own
 * (`<prefix>wf:<id>:`), so the same session id never names one session of two workflows.
 * @param exporters replace the OTLP exporters (tests: the SDK's in-memory ones); export then runs without an endpoint.
 * @param judge replaces the judge the `judge:` section would build (a scripted judge, in tests or embedding).
 * @throws {WorkflowValidationError} when a workflow file is invalid.
 * @throws {RulebaseError} when a rulebase file is invalid (every error with its line).
 * @throws {EmbeddingModelLoadError} when `embeddings.provider: transformers` names a model that does not load.
 * @throws {PanoptesError} `MISSING_DEPENDENCY` when export or `rate_limit` needs a package that is not installed.
 */
export async function startServe(config: ServeConfig, { logger = console, env = process.env, exporters, judge: givenJudge }: { logger?: Logger; env?: Record<string, string | undefined>; exporters?: TelemetryExporters; judge?: Judge } = {}): Promise<RunningProxy> {
  // A type-only reference: the redis package is loaded only when configured.
  const stores: Array<import('../store/redis/index.js').RedisSessionStore<MonitorSession>> = [];
  const storeOf = async (namespace: string | undefined) => {
    if (!config.redis) return undefined;
    // Loaded only when configured: `redis` is an optional peer dependency.
    const { createRedisSessionStore, DEFAULT_REDIS_KEY_PREFIX } = await import('../store/redis/index.js');
    const prefix = config.redis.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
    const store = createRedisSessionStore<MonitorSession>({ url: config.redis.url, logger, keyPrefix: namespace === undefined ? prefix : prefix + workflowNamespace(namespace), ...(config.redis.ttlMs ? { ttlMs: config.redis.ttlMs } : {}), ...(config.redis.commandTimeoutMs ? { commandTimeoutMs: config.redis.commandTimeoutMs } : {}) });
    stores.push(store);
    return store;
  };
  // The registry the `modules:` filled at load: every workflow of the proxy is loaded with it.
  const loadOptions = { strict: config.strict, ...(config.registry ? { registry: config.registry } : {}) };
  const workflow = await loadWorkflow(config.workflow, loadOptions);
  // One embedder for every workflow: a model is loaded once.
  const embedder = config.embeddings ? await createServeEmbedder(config.embeddings, config.loopOptions?.timeoutMs) : undefined;
  // Read before telemetry starts, so a bad rulebase leaves nothing running.
  const rulebase = config.rulebase === undefined ? undefined : await loadRulebase(config.rulebase);
  const telemetry = await startTelemetry(config.telemetry, { env, ...(exporters ? { exporters } : {}) });
  const recording = { ...(telemetry?.tracer ? { tracer: telemetry.tracer } : {}), ...(telemetry?.meter ? { meter: telemetry.meter } : {}) };
  // One judge for every workflow: its rubrics judge their calls and responses, and answer their rules' judged(...).
  const judge = givenJudge ?? (config.judge ? judgeFromConfig(config.judge, { env, logger, ...recording }) : undefined);
  const rulesOf = (loaded: Rulebase | undefined) => (loaded === undefined ? undefined : createProxyRules({ rulebase: loaded, factSummary: config.factSummary, ...(judge ? { judge } : {}) }));
  const rules = rulesOf(rulebase);
  const store = await storeOf(undefined);
  const monitor = createMonitor({ workflow, logger, ...semanticMonitorOptions(config, embedder), ...(store ? { store } : {}), ...recording });
  const workflows: ProxyWorkflow[] = [];
  for (const entry of config.workflows) {
    const entryStore = await storeOf(entry.id);
    const entryMonitor = createMonitor({ workflow: await loadWorkflow(entry.workflow, loadOptions), logger, ...semanticMonitorOptions({ ...config, loops: entry.loops ?? config.loops, ...(entry.loopOptions ? { loopOptions: entry.loopOptions } : {}) }, embedder), ...(entryStore ? { store: entryStore } : {}), ...recording });
    const entryRules = rulesOf(entry.rulebase === undefined ? undefined : await loadRulebase(entry.rulebase));
    workflows.push({ id: entry.id, select: entry.select, monitor: entryMonitor, ...(entryRules ? { rules: entryRules } : {}), ...(entryStore ? { conversations: entryStore.conversations() } : {}) });
  }
  if (store) {
    await Promise.all(stores.map((each) => each.ready(2000))).catch(() => logger.warn(`[panoptes proxy] Redis did not answer at start; serving degraded (sessions not shared) until it does.`));
  }
  const proxy = createProxy({
    upstream: config.upstream,
    ...(config.anthropicUpstream ? { anthropicUpstream: config.anthropicUpstream } : {}),
    ...(config.passthrough ? { passthrough: config.passthrough } : {}),
    monitor,
    ...(rules ? { rules } : {}),
    workflowId: config.workflowId,
    workflows,
    port: config.port,
    host: config.host,
    ...(config.proxyKeys.length > 0 ? { proxyKeys: config.proxyKeys } : {}),
    requireSessionId: config.requireSessionId,
    // With Redis, requests that name no session are placed through it too, so every instance agrees where they go.
    ...(store ? { conversations: store.conversations(), responseRecords: store.responses() } : {}),
    bodyLimitBytes: config.limits.bodyBytes,
    upstreamTimeoutMs: config.limits.upstreamTimeoutMs,
    textPolicy: config.textPolicy,
    holdTextChars: config.limits.holdTextChars,
    holdTextMs: config.limits.holdTextMs,
    ...(config.refusalMessage === undefined ? {} : { refusalMessage: config.refusalMessage }),
    ...(judge ? { judge } : {}),
    logger,
    ...(store ? { storeHealthy: () => stores.every((each) => each.healthy) } : {}),
    ...(config.readyWhenDegraded ? { readyWhenDegraded: true } : {}),
    ...(config.rateLimit ? { rateLimit: config.rateLimit } : {}),
    ...recording,
  });
  let listening: { url: string; port: number };
  try {
    listening = await proxy.listen();
  } catch (error) {
    await proxy.close().catch(() => {});
    for (const each of stores) await each.close();
    await telemetry?.shutdown();
    throw error;
  }
  const { url, port } = listening;
  return {
    url,
    port,
    proxy,
    async close() {
      await proxy.close();
      // The monitors' writes flushed before the stores go; what is left of the traces and metrics goes out last.
      for (const each of [monitor, ...workflows.map((entry) => entry.monitor)]) await each.close();
      for (const each of stores) await each.close();
      await telemetry?.shutdown();
    },
  };
}
