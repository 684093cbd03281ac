/**
 * Starts a proxy from a checked configuration: the workflow, the session store (Redis when configured), the monitor
 * and the server. What `panoptes serve` runs, and usable as is for embedding.
 * @module
 */
import { createMonitor } from '../monitor/index.js';
import type { Logger, MonitorSession } from '../monitor/index.js';
import { loadWorkflow } from '../workflow/index.js';
import type { ServeConfig } from './config.js';
import { createProxy, type Proxy } from './server.js';

/** A running proxy: its URL, and `close` to drain and stop it. */
export interface RunningProxy {
  url: string;
  port: number;
  proxy: Proxy;
  close(): Promise<void>;
}

/**
 * Loads the workflow, connects the store and starts listening. Redis that does not answer at start is not fatal: the
 * proxy starts degraded (fail-open) and the client keeps reconnecting.
 * @throws {WorkflowValidationError} when the workflow file is invalid.
 */
export async function startServe(config: ServeConfig, { logger = console }: { logger?: Logger } = {}): Promise<RunningProxy> {
  const workflow = await loadWorkflow(config.workflow, { strict: config.strict });
  let store: import('../store/redis/index.js').RedisSessionStore<MonitorSession> | undefined;
  if (config.redis) {
    // Loaded only when configured: `redis` is an optional peer dependency.
    const { createRedisSessionStore } = await import('../store/redis/index.js');
    store = createRedisSessionStore<MonitorSession>({ url: config.redis.url, logger, ...(config.redis.keyPrefix ? { keyPrefix: config.redis.keyPrefix } : {}), ...(config.redis.ttlMs ? { ttlMs: config.redis.ttlMs } : {}), ...(config.redis.commandTimeoutMs ? { commandTimeoutMs: config.redis.commandTimeoutMs } : {}) });
    await store.ready(2000).catch(() => logger.warn(`[panoptes proxy] Redis did not answer at start; serving degraded (sessions not shared) until it does.`));
  }
  const monitor = createMonitor({ workflow, logger, loops: config.loops, ...(store ? { store } : {}) });
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
    logger,
    ...(store ? { storeHealthy: () => store.healthy } : {}),
  });
  const { url, port } = await proxy.listen();
  return {
    url,
    port,
    proxy,
    async close() {
      await proxy.close();
      // The monitor's writes and telemetry flushed before the store goes.
      await monitor.close();
      await store?.close();
    },
  };
}
