/**
 * Starts a proxy from a checked configuration: the workflow, the session store (Redis when configured), the monitor
 * and the server. What `panoptes serve` runs, and usable as is for embedding.
 * @module
 */
import { createMonitor } from '../monitor/index.js';
import type { Logger, MonitorSession } from '../monitor/index.js';
import { loadWorkflow } from '../workflow/index.js';
import type { ServeConfig } from './config.js';
import { createServeEmbedder, semanticMonitorOptions } from './semantic-tier.js';
import { startTelemetry, type TelemetryExporters } from './otel.js';
import { createProxy, type Proxy } from './server.js';

/** A running proxy: its URL, and `close` to drain and stop it. */
export interface RunningProxy {
  url: string;
  port: number;
  proxy: Proxy;
  close(): Promise<void>;
}

/**
 * Loads the workflow, starts OpenTelemetry export when asked for, connects the store and starts listening. Redis that
 * does not answer at start is not fatal: the proxy starts degraded (fail-open) and the client keeps reconnecting.
 * @param exporters replace the OTLP exporters (tests: the SDK's in-memory ones); export then runs without an endpoint.
 * @throws {WorkflowValidationError} when the workflow file is invalid.
 * @throws {EmbeddingModelLoadError} when `embeddings.provider: transformers` names a model that does not load.
 * @throws {PanoptesError} `MISSING_DEPENDENCY` when export or `rate_limit` needs a package that is not installed.
 */
export async function startServe(config: ServeConfig, { logger = console, env = process.env, exporters }: { logger?: Logger; env?: Record<string, string | undefined>; exporters?: TelemetryExporters } = {}): Promise<RunningProxy> {
  const workflow = await loadWorkflow(config.workflow, { strict: config.strict });
  const embedder = config.embeddings ? await createServeEmbedder(config.embeddings, config.loopOptions?.timeoutMs) : undefined;
  const telemetry = await startTelemetry(config.telemetry, { env, ...(exporters ? { exporters } : {}) });
  const recording = { ...(telemetry?.tracer ? { tracer: telemetry.tracer } : {}), ...(telemetry?.meter ? { meter: telemetry.meter } : {}) };
  let store: import('../store/redis/index.js').RedisSessionStore<MonitorSession> | undefined;
  if (config.redis) {
    // Loaded only when configured: `redis` is an optional peer dependency.
    const { createRedisSessionStore } = await import('../store/redis/index.js');
    store = createRedisSessionStore<MonitorSession>({ url: config.redis.url, logger, ...(config.redis.keyPrefix ? { keyPrefix: config.redis.keyPrefix } : {}), ...(config.redis.ttlMs ? { ttlMs: config.redis.ttlMs } : {}), ...(config.redis.commandTimeoutMs ? { commandTimeoutMs: config.redis.commandTimeoutMs } : {}) });
    await store.ready(2000).catch(() => logger.warn(`[panoptes proxy] Redis did not answer at start; serving degraded (sessions not shared) until it does.`));
  }
  const monitor = createMonitor({ workflow, logger, ...semanticMonitorOptions(config, embedder), ...(store ? { store } : {}), ...recording });
  const proxy = createProxy({
    upstream: config.upstream,
    ...(config.anthropicUpstream ? { anthropicUpstream: config.anthropicUpstream } : {}),
    ...(config.passthrough ? { passthrough: config.passthrough } : {}),
    monitor,
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
    logger,
    ...(store ? { storeHealthy: () => store.healthy } : {}),
    ...(config.readyWhenDegraded ? { readyWhenDegraded: true } : {}),
    ...(config.rateLimit ? { rateLimit: config.rateLimit } : {}),
    ...recording,
  });
  let listening: { url: string; port: number };
  try {
    listening = await proxy.listen();
  } catch (error) {
    await proxy.close().catch(() => {});
    await store?.close();
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
      await store?.close();
      // What is left of the traces and metrics goes out before the process exits.
      await telemetry?.shutdown();
    },
  };
}
