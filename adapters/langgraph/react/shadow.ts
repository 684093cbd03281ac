import { randomUUID } from 'node:crypto';
import { Command, INTERRUPT, isCommand } from '@langchain/langgraph';
import { trace } from '@opentelemetry/api';
import { canonicalJson, warnSafely, type Logger, type Monitor, type ShadowDisagreementSummary } from '../../../src/index.js';
import { namedSessionId } from '../../langchain/session-id.js';
import type { CriterionResult } from './verification-state.js';
import type { VerificationRunner } from './verify-case.js';

/** Confidence apart, at least, for two verdicts of the same status to count as a disagreement. */
export const DEFAULT_SHADOW_CONFIDENCE_TOLERANCE = 0.2;

/** Name of the OpenTelemetry event a disagreement adds to the active span. */
export const SHADOW_DISAGREEMENT_EVENT = 'panoptes.shadow_disagreement';

/** How the candidate's verdict on one criterion differs from the primary's: the monitor event's fields, with both results. */
export interface ShadowDisagreement extends Omit<ShadowDisagreementSummary, 'primaryStatus' | 'candidateStatus'> {
  primary: CriterionResult;
  candidate: CriterionResult;
}

/** Options of {@link shadowVerifier}. */
export interface ShadowVerifierOptions {
  /** Called with each disagreement; its errors are logged once and never reach the primary's caller. */
  onDisagreement: (disagreement: ShadowDisagreement) => void | Promise<void>;
  /**
   * Also told of each disagreement, as a `shadow-disagreement` event (`monitor.on('shadow-disagreement', ...)`), in
   * the session of the primary's run (its `thread_id` or `metadata.session_id`, else the criterion's id).
   */
  monitor?: Pick<Monitor, 'recordShadowDisagreement'>;
  /** @default 0.2 */
  confidenceTolerance?: number;
  /** Where a failing candidate or callback is reported, once per place. @default console */
  logger?: Logger;
}

/** A verifier that answers with the primary and runs the candidate beside it. */
export interface ShadowVerifier extends VerificationRunner {
  /** Resolves when every candidate run started so far has been compared (for tests and a clean shutdown). */
  settled(): Promise<void>;
  /** Candidate runs that failed, and callbacks that threw. */
  misses(): { candidate: number; callback: number };
}

/**
 * Shadow mode, the reference controller's first migration phase: every input goes to the primary, whose state is
 * returned as soon as it is ready, and to the candidate, in the background; when both have a result, each
 * difference in status, confidence or citations is reported to `onDisagreement`, as an OpenTelemetry event
 * (`panoptes.shadow_disagreement`) on the active span, and, given a `monitor`, as its `shadow-disagreement` event. The candidate never delays, changes or fails the primary's
 * answer. A pause (an interrupt) on either side is no disagreement; resuming (a `Command`) resumes the candidate too
 * when its own run paused.
 * @example
 * const verifier = shadowVerifier(heuristicGraph, createVerificationGraph({ model, retriever }), { onDisagreement: (d) => log.info(d) });
 * const results = await verifyCase(verifier, caseBundle, criteria);
 */
export function shadowVerifier(primary: VerificationRunner, candidate: VerificationRunner, { onDisagreement, monitor, confidenceTolerance = DEFAULT_SHADOW_CONFIDENCE_TOLERANCE, logger = console }: ShadowVerifierOptions): ShadowVerifier {
  const pending = new Set<Promise<void>>();
  const misses = { candidate: 0, callback: 0 };
  const report = (kind: 'candidate' | 'callback', error: unknown) => {
    if (misses[kind]++ === 0) warnSafely(logger, `[panoptes] shadow ${kind === 'candidate' ? 'candidate run' : 'onDisagreement or the monitor'} failed; the primary's results are unaffected. Later failures are counted, not logged.`, error);
  };
  const verifier: ShadowVerifier & { readonly builder: unknown } = {
    get checkpointer() {
      return primary.checkpointer;
    },
    // The primary's graph, so verifyCase reads a paused run the way the primary's graph would.
    get builder() {
      return (primary as { builder?: unknown }).builder;
    },
    getState: primary.getState ? (config) => primary.getState!(config) : undefined,
    async invoke(input, config) {
      const shadow = candidateRun(candidate, input, candidateConfig(config, candidate));
      shadow.catch(() => {}); // compared below; its failure must not surface as an unhandled rejection
      const state = await primary.invoke(input, config);
      const span = trace.getActiveSpan();
      const comparison = shadow.then(
        async (other) => {
          if (!other || paused(state) || paused(other) || !state.result || !other.result) return;
          const disagreement = compare(state.result, other.result, confidenceTolerance);
          if (!disagreement) return;
          span?.addEvent(SHADOW_DISAGREEMENT_EVENT, { 'panoptes.criterion.id': disagreement.criterionId, 'panoptes.shadow.differences': disagreement.differences.join(','), 'panoptes.shadow.confidence_delta': disagreement.confidenceDelta });
          try {
            monitor?.recordShadowDisagreement(namedSessionId(undefined, config as never) ?? disagreement.criterionId, summaryOf(disagreement));
            await onDisagreement(disagreement);
          } catch (error) {
            report('callback', error);
          }
        },
        (error: unknown) => report('candidate', error),
      );
      pending.add(comparison);
      void comparison.finally(() => pending.delete(comparison));
      return state;
    },
    async settled() {
      while (pending.size > 0) await Promise.all(pending);
    },
    misses: () => ({ ...misses }),
  };
  return verifier;
}

/** Whether an invocation's output is a pause: it waits on interrupts, and has no verdict yet. */
function paused(output: { result?: CriterionResult | undefined }): boolean {
  const interrupts = (output as { [INTERRUPT]?: unknown[] })[INTERRUPT];
  return (Array.isArray(interrupts) && interrupts.length > 0) || output.result?.status === 'paused';
}

/**
 * The candidate's run of an input. A resumption (a `Command`) resumes the candidate only when its own thread waits
 * on an interrupt, and with the answer alone: the primary's command may move the primary's clock.
 */
async function candidateRun(candidate: VerificationRunner, input: Parameters<VerificationRunner['invoke']>[0], config: Record<string, unknown> | undefined): Promise<{ result?: CriterionResult | undefined } | undefined> {
  if (!isCommand(input)) return candidate.invoke(input, config);
  const snapshot = candidate.getState && config ? ((await candidate.getState(config)) as { tasks?: Array<{ interrupts?: unknown[] }> }) : undefined;
  if (!snapshot?.tasks?.some((task) => (task.interrupts?.length ?? 0) > 0)) return undefined;
  return candidate.invoke(new Command({ resume: input.resume }), config);
}

/**
 * The candidate's run config: a thread of its own (the primary's thread id with `:shadow`, or a new one when only the
 * candidate keeps checkpoints), so the two never write to one thread of a shared checkpointer.
 */
function candidateConfig(config: Record<string, unknown> | undefined, candidate: VerificationRunner): Record<string, unknown> | undefined {
  const configurable = (config?.configurable ?? {}) as { thread_id?: unknown };
  if (configurable.thread_id !== undefined) return { ...config, configurable: { ...configurable, thread_id: `${String(configurable.thread_id)}:shadow` } };
  if (candidate.checkpointer) return { ...config, configurable: { ...configurable, thread_id: `shadow-${randomUUID()}` } };
  return config;
}

/** The disagreement as the monitor's event carries it: plain fields, not the two whole results. */
function summaryOf({ criterionId, differences, primary, candidate, confidenceDelta, citations }: ShadowDisagreement): ShadowDisagreementSummary {
  return { criterionId, differences, primaryStatus: primary.status, candidateStatus: candidate.status, confidenceDelta, citations };
}

/** The disagreement between two results for one criterion, or undefined when they agree or either is `paused` (a pause is no verdict). */
export function compareResults(primary: CriterionResult, candidate: CriterionResult, confidenceTolerance = DEFAULT_SHADOW_CONFIDENCE_TOLERANCE): ShadowDisagreement | undefined {
  return compare(primary, candidate, confidenceTolerance);
}

function compare(primary: CriterionResult, candidate: CriterionResult, confidenceTolerance: number): ShadowDisagreement | undefined {
  if (primary.status === 'paused' || candidate.status === 'paused') return undefined;
  const key = (citation: { source: string; quote: string }) => canonicalJson({ source: citation.source, quote: citation.quote.toLowerCase().replace(/\s+/g, ' ').trim() });
  const primaryCited = new Set(primary.citations.map(key));
  const candidateCited = new Set(candidate.citations.map(key));
  const onlyPrimary = [...primaryCited].filter((citation) => !candidateCited.has(citation));
  const onlyCandidate = [...candidateCited].filter((citation) => !primaryCited.has(citation));
  const confidenceDelta = candidate.confidence - primary.confidence;
  const differences: ShadowDisagreement['differences'] = [];
  if (primary.status !== candidate.status) differences.push('status');
  if (Math.abs(confidenceDelta) >= confidenceTolerance) differences.push('confidence');
  if (onlyPrimary.length > 0 || onlyCandidate.length > 0) differences.push('citations');
  if (differences.length === 0) return undefined;
  return { criterionId: primary.criterionId, differences, primary, candidate, confidenceDelta, citations: { onlyPrimary, onlyCandidate } };
}
