import type { Attributes, Span } from '@opentelemetry/api';
import type { ClassificationResult } from '../classify/index.js';
import type { RenderedIntervention } from '../intervene/index.js';
import type { WorkflowEffect } from '../workflow/index.js';
import { ATTR, EVENT } from './names.js';
import type { Telemetry } from './telemetry.js';

/** What a loop report carries that telemetry records (the loop detector's `LoopReport`, structurally). */
export interface LoopReportLike {
  kind: string;
  action: string;
  detection: number;
  step: number;
  message: string;
  also?: ReadonlyArray<{ kind: string }>;
}

/** The attributes that mark a span as a guardrail in LLM-observability backends (OpenInference, Langfuse). */
export function guardrailMarkers(denied: boolean): Attributes {
  return {
    [ATTR.openInferenceSpanKind]: 'GUARDRAIL',
    [ATTR.langfuseObservationType]: 'guardrail',
    ...(denied ? { [ATTR.langfuseObservationLevel]: 'WARNING' } : {}),
  };
}

/** The classification of a response as span attributes: the last step's state, method and confidence, and every state. */
export function classificationAttributes(classifications: readonly ClassificationResult[]): Attributes {
  const last = classifications[classifications.length - 1];
  if (!last) return {};
  return {
    [ATTR.state]: last.state,
    [ATTR.method]: last.method,
    [ATTR.confidence]: last.confidence,
    ...(classifications.length > 1 ? { [ATTR.classifiedStates]: classifications.map((result) => result.state) } : {}),
  };
}

/** The workflow's moves and verdicts as span events. */
export function recordEffects(telemetry: Telemetry, span: Span | undefined, effects: readonly WorkflowEffect[]): void {
  if (!span) return;
  for (const effect of effects) {
    switch (effect.type) {
      case 'state-entered':
        telemetry.event(span, EVENT.stateChange, { [ATTR.fromState]: effect.from, [ATTR.state]: effect.to });
        break;
      case 'constraint-violated': {
        const { violation } = effect;
        telemetry.event(span, EVENT.violation, {
          [ATTR.constraint]: violation.constraint,
          [ATTR.severity]: violation.severity,
          [ATTR.message]: violation.message,
          ...(violation.state === undefined ? {} : { [ATTR.state]: violation.state }),
          ...(violation.withheld ? { [ATTR.withheld]: true } : {}),
        });
        break;
      }
      case 'deviation-recorded':
        telemetry.event(span, EVENT.deviation, { [ATTR.fromState]: effect.deviation.from, [ATTR.state]: effect.deviation.to });
        break;
      case 'call-refused':
        telemetry.event(span, EVENT.refusal, {
          [ATTR.state]: effect.refusal.state,
          [ATTR.refusedBy]: effect.refusal.by,
          [ATTR.guardReason]: effect.refusal.reason,
          [ATTR.constraints]: effect.refusal.constraints,
        });
        break;
      case 'constraint-doomed':
        telemetry.event(span, EVENT.doomed, { [ATTR.constraint]: effect.constraint, [ATTR.message]: effect.message });
        break;
      default:
        break;
    }
  }
}

/** Counts the violations among a transition's effects (each effect is counted once, wherever it happened). */
export function countEffects(telemetry: Telemetry, effects: readonly WorkflowEffect[]): void {
  for (let index = 0; index < effects.length; index++) {
    const effect = effects[index]!;
    if (effect.type !== 'constraint-violated') continue;
    const { constraint, severity, withheld } = effect.violation;
    telemetry.count('violations', withheld ? { [ATTR.constraint]: constraint, [ATTR.severity]: severity, [ATTR.withheld]: true } : { [ATTR.constraint]: constraint, [ATTR.severity]: severity });
  }
}

/**
 * A response withheld before delivery, on its `panoptes.check` span: a guardrail that acted (`panoptes.action`
 * `withhold`), the constraints, and the user message that replaced it (the workflow's text, never the response's).
 */
export function withheldAttributes(withheld: { constraints: readonly string[]; userMessage: string }): Attributes {
  return { [ATTR.action]: 'withhold', [ATTR.withheld]: true, [ATTR.constraints]: [...withheld.constraints], [ATTR.userMessage]: withheld.userMessage, ...guardrailMarkers(true) };
}

/** One applied (or blocking) intervention: counted by strategy, and an event on the span. */
export function recordIntervention(telemetry: Telemetry, span: Span | undefined, intervention: RenderedIntervention): void {
  telemetry.count('interventions', { [ATTR.strategy]: intervention.strategy });
  if (!span) return;
  const text = telemetry.content(intervention.text);
  telemetry.event(span, EVENT.intervention, { [ATTR.intervention]: intervention.name, [ATTR.strategy]: intervention.strategy, ...(text === undefined ? {} : { [ATTR.interventionText]: text }) });
}

/** A loop report's attributes; its message (which quotes what repeated) only with `captureContent`. */
export function loopAttributes(telemetry: Telemetry, report: LoopReportLike): Attributes {
  const message = telemetry.content(report.message);
  return {
    [ATTR.loopKind]: report.kind,
    [ATTR.loopAction]: report.action,
    [ATTR.loopDetection]: report.detection,
    [ATTR.loopStep]: report.step,
    ...(message === undefined ? {} : { [ATTR.message]: message }),
  };
}
