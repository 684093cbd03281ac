/**
 * What the proxy records of each request it answers: one OpenTelemetry server span (the parent of the monitor's check
 * and guard spans for that request), the request counter by route, model and status, and the duration histogram by
 * route and outcome. Started when the request arrives, ended when its answer ends (the last byte of a stream) or the
 * client goes away.
 * @module
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Histogram, type Meter, type Span, type Tracer } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ATTR, INSTRUMENTATION_SCOPE } from '../telemetry/index.js';
import { DURATION_BUCKETS_S, modelLabels, PROXY_METRICS, type ProxyMetrics } from './metrics.js';

/**
 * How a request ended, for the histogram and the span (`panoptes.outcome`). Set by the proxy where it knows (a hard
 * block, a withheld answer); otherwise read from the status: `unauthorized` (401), `rate_limited` (429), `rejected`
 * (another 4xx), `error` (5xx), `ok`; `aborted` when the client went away before the answer ended.
 */
export type Outcome = 'ok' | 'refused' | 'withheld' | 'blocked' | 'loop_cut' | 'rejected' | 'unauthorized' | 'rate_limited' | 'upstream_error' | 'aborted' | 'error';

/** Attribute names of the request span that the monitor's spans do not use. */
export const REQUEST_ATTR = {
  outcome: 'panoptes.outcome',
  method: 'http.request.method',
  route: 'http.route',
  status: 'http.response.status_code',
  requestModel: 'gen_ai.request.model',
} as const;

interface RequestRecord {
  start: number;
  route: string;
  outcome?: Outcome;
  span?: Span;
  context?: Context;
}

const RECORD = Symbol('panoptes.request-record');
type Recorded = FastifyRequest['raw'] & { [RECORD]?: RequestRecord };

/** Marks how a request ended, when the status alone would not say (a refused tool call in a 200, a cut stream). */
export function noteOutcome(reply: FastifyReply, outcome: Outcome): void {
  const record = (reply.request.raw as Recorded)[RECORD];
  if (record) record.outcome = outcome;
}

/** Options of {@link recordRequests}. */
export interface RequestTelemetryOptions {
  metrics: ProxyMetrics;
  /** Where the request spans go. @default the global tracer provider's (a no-op until an SDK is registered) */
  tracer?: Tracer | undefined;
  /** Where `http.server.request.duration` goes besides `/metrics`. @default none */
  meter?: Meter | undefined;
  /** The name of the workflow that served the request, on every request span. */
  workflow: (request: FastifyRequest) => string;
  /** The id of the workflow that served the request, as a `workflow` label of its metrics (a proxy with several). */
  workflowLabel?: ((request: FastifyRequest) => string | undefined) | undefined;
  /** The session header of an answer. */
  sessionHeader: string;
  /** Requests that get no span (probes): counted and timed, not traced. */
  untraced(request: FastifyRequest): boolean;
}

/**
 * Records every request from `onRequest` on; `within(request, fn)` runs a route's handler with the request span as the
 * active span, so that the monitor's spans nest under it.
 */
export function recordRequests({ metrics, tracer = trace.getTracer(INSTRUMENTATION_SCOPE), meter, workflow, workflowLabel, sessionHeader, untraced }: RequestTelemetryOptions) {
  const modelOf = modelLabels();
  const duration: Histogram | undefined = meter?.createHistogram('http.server.request.duration', { description: 'Duration of the proxy answering a request.', unit: 's', advice: { explicitBucketBoundaries: [...DURATION_BUCKETS_S] } });

  function start(request: FastifyRequest, reply: FastifyReply): void {
    const route = routeOf(request);
    const record: RequestRecord = { start: performance.now(), route };
    (request.raw as Recorded)[RECORD] = record;
    if (!untraced(request)) {
      // A client that sent a trace context (traceparent) gets the request span in its trace, with a propagator set.
      const parent = propagation.extract(context.active(), request.headers);
      const span = tracer.startSpan(route === 'unknown' ? request.method : `${request.method} ${route}`, { kind: SpanKind.SERVER, attributes: { [REQUEST_ATTR.method]: request.method, [REQUEST_ATTR.route]: route } }, parent);
      if (span.isRecording()) {
        record.span = span;
        record.context = trace.setSpan(parent, span);
      }
    }
    reply.raw.once('close', () => finish(request, reply, record));
  }

  function finish(request: FastifyRequest, reply: FastifyReply, record: RequestRecord): void {
    const status = reply.raw.statusCode;
    const outcome: Outcome = !reply.raw.writableFinished ? 'aborted' : (record.outcome ?? outcomeOfStatus(status));
    const seconds = (performance.now() - record.start) / 1000;
    const body = request.body as { model?: unknown } | undefined;
    const named = body !== null && typeof body === 'object' && !isStream(body) ? body.model : undefined;
    const served = workflowLabel?.(request);
    const label: Record<string, string> = served === undefined ? {} : { workflow: served };
    metrics.add(PROXY_METRICS.requests, { route: record.route, model: modelOf(named), status: String(status), ...label });
    metrics.observe(PROXY_METRICS.requestDuration, { route: record.route, outcome, ...label }, seconds);
    try {
      duration?.record(seconds, { [REQUEST_ATTR.route]: record.route, [REQUEST_ATTR.method]: request.method, [REQUEST_ATTR.status]: status, [REQUEST_ATTR.outcome]: outcome });
      const span = record.span;
      if (!span) return;
      const session = reply.getHeader(sessionHeader);
      span.setAttributes({
        [REQUEST_ATTR.status]: status,
        [REQUEST_ATTR.outcome]: outcome,
        ...(typeof named === 'string' ? { [REQUEST_ATTR.requestModel]: named.slice(0, 256) } : {}),
        [ATTR.workflow]: workflow(request),
        ...(typeof session === 'string' ? { [ATTR.conversationId]: session, [ATTR.sessionId]: session } : {}),
      });
      if (status >= 500 || outcome === 'upstream_error' || outcome === 'error') span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    } catch {
      // An SDK that throws changes nothing for the request, which has been answered.
    }
  }

  return {
    start,
    /** Runs `fn` with the request's span active (its monitor spans nest under it); as is without a span. */
    within<T>(request: FastifyRequest, fn: () => T): T {
      const active = (request.raw as Recorded)[RECORD]?.context;
      return active ? context.with(active, fn) : fn();
    },
  };
}

/** The route label: the route's path, `pass-through` for every other /v1 route, `unknown` for no route. */
function routeOf(request: FastifyRequest): string {
  const route = request.routeOptions.url;
  if (route === undefined) return 'unknown';
  return route.startsWith('/v1/*') ? 'pass-through' : route;
}

function outcomeOfStatus(status: number): Outcome {
  if (status < 400) return 'ok';
  if (status === 401) return 'unauthorized';
  if (status === 429) return 'rate_limited';
  return status >= 500 ? 'error' : 'rejected';
}

function isStream(body: object): boolean {
  return typeof (body as { pipe?: unknown }).pipe === 'function';
}
