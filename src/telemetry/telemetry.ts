import { context, createNoopMeter, metrics, ProxyTracerProvider, SpanStatusCode, trace, type Attributes, type Context, type Counter, type Histogram, type Meter, type MeterProvider, type Span, type Tracer } from '@opentelemetry/api';
import { ATTR, EVENT, INSTRUMENTATION_SCOPE, METRIC } from './names.js';
import { redactSecrets, secretPatterns } from './redact.js';

/** Telemetry options shared by `createMonitor`, `createSentinel` and `createLoopDetector`. */
export interface TelemetryOptions {
  /**
   * Where Panoptes' spans go. Spans nest under the active context (the host's own span).
   * @default the global tracer provider's `panoptes` tracer: a no-op until an OpenTelemetry SDK is registered
   */
  tracer?: Tracer;
  /**
   * Where Panoptes' counters and duration histograms go.
   * @default the global meter provider's `panoptes` meter, looked up again when the global provider changes
   */
  meter?: Meter;
  /**
   * Record message content and tool arguments on spans. Secrets are redacted either way.
   * @default false
   */
  captureContent?: boolean;
  /** More patterns whose matches are redacted from every recorded text, besides API keys, bearer tokens and `Authorization` values. */
  redactPatterns?: readonly RegExp[];
  /** `false` turns Panoptes' spans and metrics off, even with an SDK registered. @default true */
  telemetry?: boolean;
  /** The agent's name, as `gen_ai.agent.name` on every span. */
  agentName?: string;
}

/** What the monitor and the loop detector add: where a failure of the SDK itself is reported (a miss). */
export interface TelemetryHooks {
  /** Called when the SDK throws (a span processor, an exporter, a meter); never twice at once. */
  onFailure?: (error: unknown) => void;
}

type CounterName = 'violations' | 'refusals' | 'interventions' | 'loops' | 'misses' | 'reactRuns' | 'reactToolCalls' | 'regenerations' | 'judgments' | 'judgeCost';
type HistogramName = 'classificationDuration' | 'guardDuration' | 'loopCheckDuration' | 'reactDuration' | 'judgeDuration';

interface Instruments {
  counters: Record<CounterName, Counter>;
  histograms: Record<HistogramName, Histogram>;
}

/** The small set of calls the monitor, the sentinel and the loop detector make. None of them throws. */
export interface Telemetry {
  readonly captureContent: boolean;
  /**
   * Whether spans may be recorded: false with the default tracer while no SDK is registered, so a caller can skip
   * the work of a span altogether (the no-SDK fast path). True whenever a tracer was passed.
   */
  tracing(): boolean;
  /** A span under the active context, or undefined when nothing would record it (no SDK: the fast path). */
  startSpan(name: string, attributes: Attributes, startTime?: number, parent?: Context): Span | undefined;
  /** The active context, to parent a span started later (after an await) where it belongs. */
  activeContext(): Context | undefined;
  /** Runs `fn` with `span` as the active span, so spans started inside nest under it. */
  withSpan<T>(span: Span | undefined, fn: () => T): T;
  setAttributes(span: Span | undefined, attributes: Attributes): void;
  event(span: Span | undefined, name: string, attributes: Attributes): void;
  /** Ends the span; an error marks it failed (only errors that escape Panoptes' call, such as a host interrupt). */
  end(span: Span | undefined, error?: unknown): void;
  /** Adds `value` (default 1) to a counter. */
  count(name: CounterName, attributes: Attributes, value?: number): void;
  /** Records the seconds since `startMs` (from {@link now}). */
  duration(name: HistogramName, startMs: number, attributes?: Attributes): void;
  /** A start time for {@link duration}: 0 (and no clock read) while no meter provider is registered. */
  now(): number;
  /** Content for a span: the text with secrets redacted when `captureContent` is on, else undefined. */
  content(value: unknown): string | undefined;
  /** A Panoptes failure that let a call through: counted, and an event on the active span. */
  miss(cause: string, error?: unknown): void;
}

const DURATION_BUCKETS_S = [0.000_005, 0.000_01, 0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Builds the telemetry helpers over a tracer and a meter (the global ones by default). An SDK that throws (a broken
 * exporter, a span processor that fails) is caught here: it never reaches the agent's call.
 */
export function createTelemetry({ tracer: tracerOption, meter: meterOption, captureContent = false, redactPatterns, telemetry: enabled = true, agentName, onFailure }: TelemetryOptions & TelemetryHooks = {}): Telemetry {
  if (!enabled) return DISABLED;
  const tracer = tracerOption ?? trace.getTracer(INSTRUMENTATION_SCOPE);
  const tracing = tracerOption ? () => true : globalTracing;
  const patterns = secretPatterns(redactPatterns);
  // Reporting a failure records a miss, which is telemetry too: a failure while reporting one is not reported again.
  let reporting = false;
  const failed = (error: unknown): void => {
    if (reporting || !onFailure) return;
    reporting = true;
    try {
      onFailure(error);
    } catch {
      // Nothing left to report to.
    } finally {
      reporting = false;
    }
  };
  let instruments: Instruments | undefined;
  let instrumentsFrom: MeterProvider | Meter | undefined;

  // The global meter provider has no proxy: a meter taken before the SDK is registered stays a no-op. So the default
  // meter is looked up again whenever the global provider changes.
  function instrumentsNow(): Instruments | undefined {
    const source = meterOption ?? metrics.getMeterProvider();
    if (source === instrumentsFrom) return instruments;
    instrumentsFrom = source;
    const meter = meterOption ?? (source as MeterProvider).getMeter(INSTRUMENTATION_SCOPE);
    if (meter === NOOP_METER) return (instruments = undefined); // no SDK: nothing to record, nothing to time
    const counter = (name: string, description: string) => meter.createCounter(name, { description, unit: '{count}' });
    const histogram = (name: string, description: string) => meter.createHistogram(name, { description, unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS_S } });
    instruments = {
      counters: {
        violations: counter(METRIC.violations, 'Temporal constraint violations, by constraint and severity.'),
        refusals: counter(METRIC.refusals, 'Tool calls refused, by tool and by what refused them.'),
        interventions: counter(METRIC.interventions, 'Interventions applied to model calls, by strategy.'),
        loops: counter(METRIC.loops, 'Loops detected, by kind.'),
        misses: counter(METRIC.misses, "Panoptes' own failures that let a call through (fail-open), by cause."),
        reactRuns: counter(METRIC.reactRuns, 'ReAct runs (verification criteria included) that ended or paused, by status and reason code.'),
        reactToolCalls: counter(METRIC.reactToolCalls, "Tool calls of ReAct runs, by tool and whether the run's cache answered."),
        regenerations: counter(METRIC.regenerations, 'Model calls made again after a withheld response, by whether the second answer was withheld too.'),
        judgments: counter(METRIC.judgments, 'Judgments of rubrics, by rubric, outcome, cache hit and error kind.'),
        judgeCost: meter.createCounter(METRIC.judgeCost, { description: 'US dollars spent on judge model calls, by rubric and model.', unit: 'USD' }),
      },
      histograms: {
        classificationDuration: histogram(METRIC.classificationDuration, 'Time to classify one model response.'),
        guardDuration: histogram(METRIC.guardDuration, 'Time of one guard decision on a tool call.'),
        loopCheckDuration: histogram(METRIC.loopCheckDuration, 'Time of one loop check.'),
        reactDuration: histogram(METRIC.reactDuration, 'Wall time of one invocation of a ReAct graph.'),
        judgeDuration: histogram(METRIC.judgeDuration, 'Time of one judgment of a rubric, cache hits included.'),
      },
    };
    return instruments;
  }

  /** Secrets out of every string the SDK will see. */
  const clean = (attributes: Attributes): Attributes => {
    for (const key in attributes) {
      const value = attributes[key];
      if (typeof value === 'string') attributes[key] = redactSecrets(value, patterns);
      else if (Array.isArray(value)) attributes[key] = value.map((item) => (typeof item === 'string' ? redactSecrets(item, patterns) : item)) as typeof value;
    }
    return attributes;
  };

  const telemetry: Telemetry = {
    captureContent,
    tracing,
    startSpan(name, attributes, startTime, parent) {
      try {
        if (!tracing()) return undefined;
        const span = tracer.startSpan(name, startTime === undefined ? undefined : { startTime }, parent);
        if (!span.isRecording()) return undefined;
        if (agentName !== undefined) attributes[ATTR.agentName] = agentName;
        span.setAttributes(clean(attributes));
        return span;
      } catch (error) {
        failed(error);
        return undefined; // the SDK failed: no span, the call goes on
      }
    },
    activeContext() {
      try {
        return context.active();
      } catch {
        return undefined;
      }
    },
    withSpan(span, fn) {
      if (!span) return fn();
      let active;
      try {
        active = trace.setSpan(context.active(), span);
      } catch {
        return fn();
      }
      return context.with(active, fn);
    },
    setAttributes(span, attributes) {
      if (!span) return;
      try {
        span.setAttributes(clean(attributes));
      } catch (error) {
        failed(error); // telemetry never fails a call
      }
    },
    event(span, name, attributes) {
      if (!span) return;
      try {
        span.addEvent(name, clean(attributes));
      } catch (error) {
        failed(error);
      }
    },
    end(span, error) {
      if (!span) return;
      try {
        if (error !== undefined) {
          span.setAttribute(ATTR.errorType, error instanceof Error ? error.name : typeof error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: redactSecrets(error instanceof Error ? error.message : String(error), patterns) });
        }
        span.end();
      } catch (error) {
        failed(error); // a span processor or exporter that throws on end: the call it describes is unaffected
      }
    },
    count(name, attributes, value = 1) {
      try {
        instrumentsNow()?.counters[name].add(value, clean(attributes));
      } catch (error) {
        failed(error);
      }
    },
    duration(name, startMs, attributes = {}) {
      if (startMs === 0) return; // started while nothing was recording
      try {
        instrumentsNow()?.histograms[name].record((performance.now() - startMs) / 1000, clean(attributes));
      } catch (error) {
        failed(error);
      }
    },
    now: () => {
      try {
        return instrumentsNow() ? performance.now() : 0;
      } catch (error) {
        failed(error);
        return 0;
      }
    },
    content(value) {
      if (!captureContent) return undefined;
      try {
        return redactSecrets(typeof value === 'string' ? value : JSON.stringify(value) ?? String(value), patterns);
      } catch {
        return undefined;
      }
    },
    miss(cause, error) {
      telemetry.count('misses', { [ATTR.missCause]: cause });
      let span: Span | undefined;
      try {
        span = trace.getActiveSpan();
      } catch {
        return;
      }
      if (!span?.isRecording()) return;
      telemetry.event(span, EVENT.miss, { [ATTR.missCause]: cause, ...(error instanceof Error ? { [ATTR.errorType]: error.name, [ATTR.message]: error.message } : {}) });
    },
  };
  return telemetry;
}

const NOOP_METER = createNoopMeter();
// What the global proxy tracer provider delegates to while no SDK is registered (a fresh proxy has no delegate). A
// provider from another copy of the API compares unequal: that copy's spans are then started and found not recording.
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/** Whether an SDK is registered as the global tracer provider. */
function globalTracing(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider && provider.getDelegate() === NOOP_TRACER_PROVIDER);
}

const nothing = (): undefined => undefined;
/** Telemetry turned off: every call does nothing. */
const DISABLED: Telemetry = {
  captureContent: false,
  tracing: () => false,
  startSpan: nothing,
  activeContext: nothing,
  withSpan: (_span, fn) => fn(),
  setAttributes: nothing,
  event: nothing,
  end: nothing,
  count: nothing,
  duration: nothing,
  now: () => 0,
  content: nothing,
  miss: nothing,
};

/** Whether options carry any telemetry setting, so callers that pass them on can skip it. */
export function telemetryOptionsOf(options: TelemetryOptions): TelemetryOptions {
  return {
    ...(options.tracer ? { tracer: options.tracer } : {}),
    ...(options.meter ? { meter: options.meter } : {}),
    ...(options.captureContent ? { captureContent: options.captureContent } : {}),
    ...(options.redactPatterns ? { redactPatterns: options.redactPatterns } : {}),
    ...(options.telemetry === false ? { telemetry: false } : {}),
    ...(options.agentName === undefined ? {} : { agentName: options.agentName }),
  };
}
