/**
 * The proxy's counters, served as Prometheus text on `GET /metrics`. A handful of counters with small, closed label
 * sets: written here rather than pulling a metrics client into the proxy.
 * @module
 */

/** What the proxy counts. */
export const PROXY_METRICS = {
  requests: 'panoptes_proxy_requests_total',
  blocked: 'panoptes_proxy_blocked_total',
  refusedToolCalls: 'panoptes_proxy_refused_tool_calls_total',
  withheldAnswers: 'panoptes_proxy_withheld_answers_total',
  interventions: 'panoptes_proxy_interventions_total',
  upstreamErrors: 'panoptes_proxy_upstream_errors_total',
  malformedChunks: 'panoptes_proxy_malformed_chunks_total',
  streamsCutOff: 'panoptes_proxy_streams_cut_off_total',
  streamsCutForLoops: 'panoptes_proxy_streams_cut_for_loops_total',
  clientAborts: 'panoptes_proxy_client_aborts_total',
  misses: 'panoptes_proxy_misses_total',
  storeUp: 'panoptes_proxy_store_up',
} as const;

const HELP: Record<string, string> = {
  [PROXY_METRICS.requests]: 'Requests answered, by route and status.',
  [PROXY_METRICS.blocked]: 'Chat completions refused before reaching the upstream (hard blocks).',
  [PROXY_METRICS.refusedToolCalls]: 'Tool calls taken out of responses before the client saw them.',
  [PROXY_METRICS.withheldAnswers]: 'Answers withheld from the client for breaking a critical constraint (replaced, or refused by a block), by how.',
  [PROXY_METRICS.interventions]: 'Interventions applied to requests, by strategy.',
  [PROXY_METRICS.upstreamErrors]: 'Upstream failures answered with 502 or 504, by code.',
  [PROXY_METRICS.malformedChunks]: 'Streamed data events from the upstream that were not JSON chunks (dropped).',
  [PROXY_METRICS.streamsCutOff]: 'Upstream streams that ended before their finish chunk.',
  [PROXY_METRICS.streamsCutForLoops]: 'Streamed responses cut short because they started repeating themselves (the upstream request is aborted).',
  [PROXY_METRICS.clientAborts]: 'Clients that went away mid-request (the upstream request was aborted).',
  [PROXY_METRICS.misses]: "Panoptes' own failures that let a call through, by cause (store, embedding, ...).",
  [PROXY_METRICS.storeUp]: '1 when the session store answers, 0 when it is degraded.',
};

type Labels = Record<string, string>;

const NEEDS_ESCAPE = /["\\\n]/;

/** Counters by name and label set; `render` prints them in the Prometheus text format. */
export function createProxyMetrics() {
  const counters = new Map<string, Map<string, number>>();
  // Every request counts one: a plain loop, and no replace for the usual value without a character to escape.
  const key = (labels: Labels) => {
    let text = '';
    for (const name in labels) {
      const value = labels[name]!;
      text += `${text ? ',' : ''}${name}="${NEEDS_ESCAPE.test(value) ? value.replace(/["\\\n]/g, (char) => (char === '\n' ? '\\n' : `\\${char}`)) : value}"`;
    }
    return text;
  };
  return {
    add(name: string, labels: Labels = {}, amount = 1): void {
      if (amount === 0) return;
      let series = counters.get(name);
      if (!series) counters.set(name, (series = new Map()));
      const labelKey = key(labels);
      series.set(labelKey, (series.get(labelKey) ?? 0) + amount);
    },
    value(name: string, labels: Labels = {}): number {
      return counters.get(name)?.get(key(labels)) ?? 0;
    },
    /** The text of `GET /metrics`; `gauges` are values read at that moment (misses, store health). */
    render(gauges: Array<{ name: string; type: 'counter' | 'gauge'; labels?: Labels; value: number }> = []): string {
      const lines: string[] = [];
      const all = new Map<string, { type: string; series: Array<[string, number]> }>();
      for (const [name, series] of counters) all.set(name, { type: 'counter', series: [...series] });
      for (const gauge of gauges) {
        const entry = all.get(gauge.name) ?? { type: gauge.type, series: [] };
        entry.series.push([key(gauge.labels ?? {}), gauge.value]);
        all.set(gauge.name, entry);
      }
      for (const [name, { type, series }] of all) {
        lines.push(`# HELP ${name} ${HELP[name] ?? name}`, `# TYPE ${name} ${type}`);
        for (const [labels, value] of series) lines.push(`${name}${labels ? `{${labels}}` : ''} ${value}`);
      }
      return `${lines.join('\n')}\n`;
    },
  };
}

export type ProxyMetrics = ReturnType<typeof createProxyMetrics>;
