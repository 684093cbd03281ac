import { context as otelContext, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { ATTR, createTelemetry, redactSecrets, secretPatterns, SPAN, type TelemetryOptions } from '../telemetry/index.js';
import type { ReactReasonCode } from './budgets.js';

/** How a ReAct run stood when one invocation of its graph ended: `running` means it paused (an interrupt). */
export interface ReactRunSummary {
  status: 'running' | 'finished' | 'uncertain';
  reasonCode?: ReactReasonCode;
  detail?: string;
  iterations: number;
  modelAttempts: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  cachedToolCalls: number;
  fallbackUsed: boolean;
  /** A verification's verdict (`paused` while the run waits on an interrupt). */
  verdict?: { status: string; confidence: number; citations: ReadonlyArray<{ source: string; quote: string }> };
}

/** One invocation of a ReAct graph as it is traced: its span (when one records) and when it began. */
export interface ReactRunTrace {
  /** The context the run's steps start their spans under: the run's span, else the caller's. */
  readonly context: Context;
  readonly span: Span | undefined;
  readonly startedAt: number;
}

/** The spans, metrics and redaction of ReAct runs, over the telemetry options the monitor takes. None of it throws. */
export interface ReactTelemetry {
  /** Text as it may enter a trace, a detail or a span: secrets and `redactPatterns` matches replaced. */
  redact(text: string): string;
  /** Whether anything records (an SDK's tracer or meter): without, runs skip the work of tracing. */
  active(): boolean;
  /** Begins an invocation: its span under the active context, and its timer. */
  startRun(name: typeof SPAN.verifyCriterion | typeof SPAN.reactRun, attributes: Attributes): ReactRunTrace;
  /**
   * Ends an invocation with the run's state: span attributes, the runs counter and the duration histogram. An
   * `error` (the invocation threw) marks the span failed; `attributes` are more for the span.
   */
  endRun(run: ReactRunTrace, summary: ReactRunSummary | undefined, ending?: { error?: unknown; attributes?: Attributes }): void;
  /** A model or tool step's span, under the run's span. */
  startStep(name: string, attributes: Attributes, run: ReactRunTrace | undefined): Span | undefined;
  endStep(span: Span | undefined, attributes: Attributes, error?: unknown): void;
  /** Counts one tool call, and whether the run's cache answered it. */
  countToolCall(tool: string, cached: boolean): void;
  /** Runs `fn` with `span` active, so spans started inside (the runs of a case) nest under it. */
  within<T>(span: Span | undefined, fn: () => T): T;
  startSpan(name: string, attributes: Attributes): Span | undefined;
  end(span: Span | undefined, attributes: Attributes, error?: unknown): void;
  /** Content for a span, only with `captureContent: true` (redacted). */
  content(value: unknown): string | undefined;
}

/**
 * The telemetry of ReAct graphs and verification: a span per invocation (`panoptes.verify_criterion` or
 * `panoptes.react_run`) with the run's status, reason code, iterations, tokens, cost and cached calls; a span per
 * model step and tool call under it; the `panoptes.react.runs` and `panoptes.react.tool_calls` counters and the
 * `panoptes.react.duration` histogram. Everything written passes the redaction the monitor's telemetry applies.
 */
export function createReactTelemetry(options: TelemetryOptions = {}): ReactTelemetry {
  const telemetry = createTelemetry(options);
  const patterns = secretPatterns(options.redactPatterns);
  return {
    redact: (text) => redactSecrets(text, patterns),
    active: () => telemetry.tracing() || telemetry.now() !== 0,
    startRun(name, attributes) {
      const span = telemetry.startSpan(name, attributes);
      const parent = otelContext.active();
      return { span, context: span ? trace.setSpan(parent, span) : parent, startedAt: telemetry.now() };
    },
    endRun(run, summary, { error, attributes = {} } = {}) {
      const outcome: Attributes = summary ? outcomeAttributes(summary) : {};
      telemetry.setAttributes(run.span, attributes);
      if (summary) {
        telemetry.setAttributes(run.span, {
          ...outcome,
          [ATTR.iterations]: summary.iterations,
          [ATTR.modelAttempts]: summary.modelAttempts,
          [ATTR.inputTokens]: summary.inputTokens,
          [ATTR.outputTokens]: summary.outputTokens,
          [ATTR.costUsd]: summary.costUsd,
          [ATTR.cachedToolCalls]: summary.cachedToolCalls,
          [ATTR.fallbackUsed]: summary.fallbackUsed,
          ...(summary.detail ? { [ATTR.reactDetail]: summary.detail } : {}),
          ...(summary.verdict ? verdictAttributes(summary.verdict, telemetry.content.bind(telemetry)) : {}),
        });
        telemetry.count('reactRuns', outcome);
      }
      telemetry.duration('reactDuration', run.startedAt, outcome);
      telemetry.end(run.span, error);
    },
    startStep: (name, attributes, run) => telemetry.startSpan(name, attributes, undefined, run?.context),
    endStep(span, attributes, error) {
      telemetry.setAttributes(span, attributes);
      telemetry.end(span, error);
    },
    countToolCall: (tool, cached) => telemetry.count('reactToolCalls', { [ATTR.toolName]: tool, [ATTR.cached]: cached }),
    within: (span, fn) => telemetry.withSpan(span, fn),
    startSpan: (name, attributes) => telemetry.startSpan(name, attributes),
    end(span, attributes, error) {
      telemetry.setAttributes(span, attributes);
      telemetry.end(span, error);
    },
    content: (value) => telemetry.content(value),
  };
}

/** The attributes a run's span, counter and histogram share: how it ended (few values, so fit for metrics). */
function outcomeAttributes(summary: ReactRunSummary): Attributes {
  return {
    [ATTR.reactStatus]: summary.status === 'running' ? 'paused' : summary.status,
    ...(summary.reasonCode ? { [ATTR.reasonCode]: summary.reasonCode } : {}),
    ...(summary.verdict ? { [ATTR.verificationStatus]: summary.verdict.status } : {}),
  };
}

/** A verdict on the span: its confidence and the sources it cites (plain text); the quotes only as captured content. */
function verdictAttributes(verdict: NonNullable<ReactRunSummary['verdict']>, content: (value: unknown) => string | undefined): Attributes {
  const quotes = verdict.citations.length > 0 ? content(verdict.citations.map((citation) => citation.quote)) : undefined;
  return {
    [ATTR.verificationConfidence]: verdict.confidence,
    [ATTR.citationSources]: verdict.citations.map((citation) => citation.source),
    ...(quotes === undefined ? {} : { [ATTR.content]: quotes }),
  };
}
