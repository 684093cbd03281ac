import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import {
  context as contextApi,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type AttributeValue,
  type Context,
  type ContextManager,
  type Link,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  type Tracer,
} from '@opentelemetry/api';

/**
 * What `panoptes audit --otlp` needs and no more: a tracer that keeps the audit's spans in memory, a context manager
 * (so the monitor's spans nest under each session's span across awaits), and an OTLP/HTTP JSON export of the lot.
 * The CLI does not take the OpenTelemetry SDK as a dependency for one flag; the format is OTLP's JSON encoding.
 */

interface Recorded {
  name: string;
  context: SpanContext;
  parentSpanId: string | undefined;
  start: bigint;
  end: bigint | undefined;
  attributes: Attributes;
  events: Array<{ name: string; time: bigint; attributes: Attributes }>;
  status: SpanStatus;
}

/** Nanoseconds since the epoch. */
function nanos(time?: TimeInput): bigint {
  if (Array.isArray(time)) return BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]);
  const ms = time instanceof Date ? time.getTime() : typeof time === 'number' ? time : performance.timeOrigin + performance.now();
  const whole = Math.floor(ms);
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1_000_000));
}

class RecordingSpan implements Span {
  readonly #record: Recorded;
  constructor(record: Recorded) {
    this.#record = record;
  }
  spanContext(): SpanContext {
    return this.#record.context;
  }
  setAttribute(key: string, value: AttributeValue): this {
    if (this.#record.end === undefined && value !== undefined) this.#record.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    for (const [key, value] of Object.entries(attributes)) if (value !== undefined) this.setAttribute(key, value);
    return this;
  }
  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.#record.end !== undefined) return this;
    const isTime = typeof attributesOrTime === 'number' || attributesOrTime instanceof Date || Array.isArray(attributesOrTime);
    this.#record.events.push({ name, time: nanos(isTime ? (attributesOrTime as TimeInput) : time), attributes: isTime ? {} : ((attributesOrTime as Attributes | undefined) ?? {}) });
    return this;
  }
  addLink(_link: Link): this {
    return this;
  }
  addLinks(_links: Link[]): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.#record.status = status;
    return this;
  }
  updateName(name: string): this {
    this.#record.name = name;
    return this;
  }
  end(endTime?: TimeInput): void {
    this.#record.end ??= nanos(endTime);
  }
  isRecording(): boolean {
    return this.#record.end === undefined;
  }
  recordException(): void {}
}

/** A context manager over AsyncLocalStorage: the active span follows the code across awaits. */
export function createAsyncContextManager(): ContextManager {
  const storage = new AsyncLocalStorage<Context>();
  return {
    active: () => storage.getStore() ?? ROOT_CONTEXT,
    with: (context, fn, thisArg, ...args) => storage.run(context, () => fn.call(thisArg, ...args)),
    bind: (_context, target) => target,
    enable() {
      return this;
    },
    disable() {
      storage.disable();
      return this;
    },
  };
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** A tracer whose spans are kept for one OTLP export. */
export function createRecordingTracer(): { tracer: Tracer; spans: () => readonly Recorded[] } {
  const spans: Recorded[] = [];
  const startSpan = (name: string, options: SpanOptions = {}, context: Context = contextApi.active()): Span => {
    const parent = options.root ? undefined : trace.getSpanContext(context);
    const record: Recorded = {
      name,
      context: { traceId: parent?.traceId ?? hex(16), spanId: hex(8), traceFlags: TraceFlags.SAMPLED },
      parentSpanId: parent?.spanId,
      start: nanos(options.startTime),
      end: undefined,
      attributes: { ...options.attributes },
      events: [],
      status: { code: SpanStatusCode.UNSET },
    };
    spans.push(record);
    return new RecordingSpan(record);
  };
  const tracer: Tracer = {
    startSpan,
    startActiveSpan(name: string, ...rest: unknown[]) {
      const fn = rest.pop() as (span: Span) => unknown;
      const [options, context] = rest as [SpanOptions | undefined, Context | undefined];
      const span = startSpan(name, options, context);
      return contextApi.with(trace.setSpan(context ?? contextApi.active(), span), fn, undefined, span);
    },
  } as Tracer;
  return { tracer, spans: () => spans };
}

type OtlpValue = { stringValue: string } | { boolValue: boolean } | { intValue: string } | { doubleValue: number } | { arrayValue: { values: OtlpValue[] } };

function otlpValue(value: unknown): OtlpValue {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(otlpValue) } };
  return { stringValue: String(value) };
}

const otlpAttributes = (attributes: Attributes) => Object.entries(attributes).flatMap(([key, value]) => (value === undefined ? [] : [{ key, value: otlpValue(value) }]));

/** The OTLP/HTTP JSON body of these spans (`ExportTraceServiceRequest`). */
export function otlpTraceBody(spans: readonly Recorded[], serviceName: string): unknown {
  return {
    resourceSpans: [
      {
        resource: { attributes: otlpAttributes({ 'service.name': serviceName }) },
        scopeSpans: [
          {
            scope: { name: 'panoptes' },
            spans: spans.map((span) => ({
              traceId: span.context.traceId,
              spanId: span.context.spanId,
              ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
              name: span.name,
              kind: 1, // SPAN_KIND_INTERNAL
              startTimeUnixNano: String(span.start),
              endTimeUnixNano: String(span.end ?? span.start),
              attributes: otlpAttributes(span.attributes),
              events: span.events.map((event) => ({ name: event.name, timeUnixNano: String(event.time), attributes: otlpAttributes(event.attributes) })),
              status: { code: span.status.code, ...(span.status.message ? { message: span.status.message } : {}) },
            })),
          },
        ],
      },
    ],
  };
}

/** `http://host:4318` or `http://host:4318/v1/traces`: OTLP's base endpoint gets the traces path appended. */
export function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (!url.pathname.endsWith('/v1/traces')) url.pathname = `${url.pathname.replace(/\/$/, '')}/v1/traces`;
  return url.toString();
}

/** Posts the spans in batches; resolves to why it failed, or undefined. */
export async function exportOtlp(endpoint: string, spans: readonly Recorded[], { serviceName = 'panoptes-audit', batch = 1000, timeoutMs = 30_000, headers = {} }: { serviceName?: string; batch?: number; timeoutMs?: number; headers?: Record<string, string> } = {}): Promise<string | undefined> {
  let url: string;
  try {
    url = tracesUrl(endpoint);
  } catch {
    return `'${endpoint}' is not a URL; pass one such as http://localhost:4318`;
  }
  for (let index = 0; index < spans.length; index += batch) {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(otlpTraceBody(spans.slice(index, index + batch), serviceName)),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) return `${url} answered ${response.status} ${response.statusText}`.trim();
      await response.arrayBuffer();
    } catch (error) {
      return `cannot reach ${url}: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`;
    }
  }
  return undefined;
}
