import { PROXY_METRICS } from '../../proxy/metrics.js';
import { PROXY_KEY_HEADER } from '../../proxy/upstream.js';
import type { ProxyInfo } from '../../proxy/info.js';
import type { WorkflowSummary } from '../../workflow/index.js';
import { renderWorkflowInfo } from './workflow-info.js';

/** What a running proxy reports about itself: `/healthz`, `/metrics` and, with its key, `/info`. */
export interface ProxyReport {
  url: string;
  health: { status: string; store: string; workflow: string };
  /** The proxy's counters, summed over their labels (`panoptes_proxy_requests_total`, ...). */
  counters: Record<string, number>;
  /** `/info`, or why it could not be read (a proxy key missing, an older proxy without it). */
  info: ProxyInfo | { unavailable: string };
}

/** Budget of each request to the proxy, in milliseconds. */
const TIMEOUT_MS = 5000;

/** Reads a proxy's own routes. @throws {ProxyUnreachable} when `/healthz` does not answer with JSON. */
export async function readProxy(url: string, key: string | undefined): Promise<ProxyReport> {
  const base = url.replace(/\/+$/, '').replace(/\/v1$/, '');
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
  let health: ProxyReport['health'];
  try {
    const response = await get('/healthz');
    health = (await response.json()) as ProxyReport['health'];
  } catch (error) {
    throw new ProxyUnreachable(`${base}/healthz did not answer as a Panoptes proxy does: ${(error as Error).message}; is \`panoptes serve\` running there?`);
  }
  const counters = await get('/metrics').then(
    async (response) => (response.ok ? sumCounters(await response.text()) : {}),
    () => ({}),
  );
  let info: ProxyReport['info'];
  try {
    const response = await get('/info', key === undefined ? {} : { [PROXY_KEY_HEADER]: key });
    if (response.status === 401) info = { unavailable: `GET /info needs the proxy key: pass --key or set PANOPTES_PROXY_KEY` };
    else if (response.status === 404) info = { unavailable: 'this proxy has no GET /info (an older version)' };
    else if (!response.ok) info = { unavailable: `GET /info answered ${response.status}` };
    else info = (await response.json()) as ProxyInfo;
  } catch (error) {
    info = { unavailable: `GET /info failed: ${(error as Error).message}` };
  }
  return { url: base, health, counters, info };
}

/** Thrown when the URL is not a proxy that answers. */
export class ProxyUnreachable extends Error {
  override name = 'ProxyUnreachable';
}

/** Prometheus text: each sample's value summed by metric name (labels dropped). */
function sumCounters(text: string): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const value = Number(match[3]);
    if (Number.isFinite(value)) sums[match[1]!] = (sums[match[1]!] ?? 0) + value;
  }
  return sums;
}

/** The report as lines for a terminal. */
export function renderProxyReport(report: ProxyReport): string[] {
  const count = (name: string) => report.counters[name] ?? 0;
  const lines = [`proxy ${report.url}: ${report.health.status} (store ${report.health.store})`];
  if ('unavailable' in report.info) lines.push(`workflow ${report.health.workflow} (details: ${report.info.unavailable})`);
  else {
    lines.push(...renderWorkflowInfo(report.info.workflow as WorkflowSummary));
    lines.push(`loop detection: ${report.info.loops ? 'on' : 'off'}`);
  }
  lines.push(
    `traffic: ${count(PROXY_METRICS.requests)} requests, ${count(PROXY_METRICS.blocked)} blocked, ${count(PROXY_METRICS.refusedToolCalls)} tool calls refused, ${count(PROXY_METRICS.withheldAnswers)} answers withheld, ${count(PROXY_METRICS.interventions)} interventions applied`,
  );
  const misses = 'unavailable' in report.info ? {} : report.info.misses;
  const missLine = Object.entries(misses).map(([cause, value]) => `${cause} ${value}`);
  lines.push(`own failures: ${missLine.length === 0 ? 'none' : missLine.join(', ')}`);
  return lines;
}
