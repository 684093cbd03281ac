/**
 * The proxy's counters and its request duration histogram, served as Prometheus text on `GET /metrics`. Small, closed
 * label sets (a client-chosen model name is capped): written here rather than pulling a metrics client into the proxy.
 * @module
 */

/** What the proxy counts. */
export const PROXY_METRICS = {
  requests: 'panoptes_proxy_requests_total',
  requestDuration: 'panoptes_proxy_request_duration_seconds',
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
  judgments: 'panoptes_proxy_judgments_total',
  judgeMisses: 'panoptes_proxy_judge_misses_total',
  storeUp: 'panoptes_proxy_store_up',
} as const;

const HELP: Record<string, string> = {
  [PROXY_METRICS.requests]: 'Requests answered, by route, model (the first 32 named; later ones are other) and status.',
  [PROXY_METRICS.requestDuration]: 'Time from a request arriving to its answer ending (the last byte of a stream), by route and outcome.',
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
  [PROXY_METRICS.judgments]: 'Judgments of the judge, by rubric, scope (tool_call, turn, conversation), outcome (pass, fail, error, skipped) and action (allow, warn, intervene, block, ask, deny).',
  [PROXY_METRICS.judgeMisses]: 'Judgments without a verdict, by rubric and cause (timeout, budget, model, invalid, ungrounded; their on_error applied), and held text that passed its bound before the judge could see it whole (hold), and conversation judgments due but not started because others were in flight (busy).',
  [PROXY_METRICS.storeUp]: '1 when the session store answers, 0 when it is degraded.',
};

type Labels = Record<string, string>;

const NEEDS_ESCAPE = /["\\\n]/;

/** Upper bounds of the request duration buckets, in seconds: a local check to a long streamed answer. */
export const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300] as const;

/** One histogram series: the count of observations in each bucket (not cumulative), their sum and number. */
interface HistogramSeries {
  buckets: number[];
  sum: number;
  count: number;
}

/** Counters and histograms by name and label set; `render` prints them in the Prometheus text format. */
export function createProxyMetrics() {
  const counters = new Map<string, Map<string, number>>();
  const histograms = new Map<string, Map<string, HistogramSeries>>();
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
    /** Records one observation (seconds) in a histogram of {@link DURATION_BUCKETS_S}. */
    observe(name: string, labels: Labels, seconds: number): void {
      let series = histograms.get(name);
      if (!series) histograms.set(name, (series = new Map()));
      const labelKey = key(labels);
      let entry = series.get(labelKey);
      if (!entry) series.set(labelKey, (entry = { buckets: new Array<number>(DURATION_BUCKETS_S.length).fill(0), sum: 0, count: 0 }));
      const at = DURATION_BUCKETS_S.findIndex((bound) => seconds <= bound);
      if (at !== -1) entry.buckets[at]!++;
      entry.sum += seconds;
      entry.count++;
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
      for (const [name, series] of histograms) {
        lines.push(`# HELP ${name} ${HELP[name] ?? name}`, `# TYPE ${name} histogram`);
        for (const [labels, { buckets, sum, count }] of series) {
          const sep = labels ? ',' : '';
          let cumulative = 0;
          DURATION_BUCKETS_S.forEach((bound, at) => {
            cumulative += buckets[at]!;
            lines.push(`${name}_bucket{${labels}${sep}le="${bound}"} ${cumulative}`);
          });
          lines.push(`${name}_bucket{${labels}${sep}le="+Inf"} ${count}`, `${name}_sum${labels ? `{${labels}}` : ''} ${sum}`, `${name}_count${labels ? `{${labels}}` : ''} ${count}`);
        }
      }
      return `${lines.join('\n')}\n`;
    },
  };
}

export type ProxyMetrics = ReturnType<typeof createProxyMetrics>;

/** Most model names the metrics label by name; requests for any other model are labelled `other`. */
export const MAX_MODEL_LABELS = 32;

/**
 * The `model` label of a request: its model name while fewer than `limit` names were seen (and the name is short),
 * else `other`; `none` when the request names no model (a pass-through route). The name is the client's, so without
 * the cap a client could make a series per request.
 */
export function modelLabels(limit = MAX_MODEL_LABELS): (model: unknown) => string {
  const seen = new Set<string>();
  return (model) => {
    if (typeof model !== 'string' || model === '') return 'none';
    if (seen.has(model)) return model;
    if (seen.size >= limit || model.length > 100) return 'other';
    seen.add(model);
    return model;
  };
}
