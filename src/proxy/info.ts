import type { FastifyInstance } from 'fastify';
import type { Monitor } from '../monitor/index.js';
import { workflowSummary, type WorkflowSummary } from '../workflow/index.js';

/** What `GET /info` answers: the workflow the proxy enforces, and how its monitor is set up. */
export interface ProxyInfo {
  workflow: WorkflowSummary;
  /** Whether loop detection is on. */
  loops: boolean;
  /** Whether the session store answers now. */
  storeHealthy: boolean;
  /** Panoptes' own failures so far, by cause. */
  misses: Record<string, number>;
}

/**
 * `GET /info`: read-only, and behind the proxy key like the `/v1` routes (only `/healthz` and `/metrics` are open),
 * since a workflow's states and constraints say what the agent may do. What `panoptes info <url>` prints.
 */
export function registerInfoRoute(app: FastifyInstance, monitor: Monitor, storeHealthy: () => boolean): void {
  const workflow = workflowSummary(monitor.workflow);
  app.get('/info', async (_request, reply) => {
    let healthy = false;
    try {
      healthy = storeHealthy() === true;
    } catch {
      // a health check that throws is an unhealthy store
    }
    const info: ProxyInfo = { workflow, loops: monitor.loops !== undefined, storeHealthy: healthy, misses: { ...monitor.misses() } as Record<string, number> };
    return reply.send(info);
  });
}
