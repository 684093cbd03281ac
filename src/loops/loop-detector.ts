import { assertEmbedding, EmbedderTimeoutError, InvalidEmbeddingError, withTimeout, type Embedder } from '../embed/index.js';
import { createMissCounter } from '../monitor/fail-open.js';
import { createKeyedQueue } from '../monitor/keyed-queue.js';
import { findAlternation, type StepKey } from './alternation.js';
import { attachResults, callRecord, type CallRecord } from './call-history.js';
import { actionFor, recordDetection } from './escalation.js';
import { ACTION_RANK, renderLoopText } from './hints.js';
import { createLongWindow, type LongWindow } from './long-window.js';
import { breakMonologue, initialMonologue, observeMonologue, type MonologueState } from './monologue.js';
import { resolveLoopOptions, type LoopDetectorOptions, type ResolvedLoopOptions } from './options.js';
import { createStepPreparer, subjectOf, type PreparedStep } from './prepare-step.js';
import { findRepeatedAction } from './repeated-action.js';
import { findRepeatedError } from './repeated-error.js';
import { findRepeatedText } from './repeated-text.js';
import { Ring } from './ring.js';
import { findToolCycle } from './tool-cycle.js';
import { bestInWindow, unitVector, type WindowEntry, type WindowMatch } from './semantic-window.js';
import { createLoopSessionStore, sessionKey } from './session-store.js';
import type { LoopDetector, LoopFinding, LoopHint, LoopObserveOptions, LoopReport, LoopStep } from './types.js';

/** Everything the detector keeps about one session. Every list is bounded. */
interface LoopSession {
  /** Steps with text or calls seen so far; numbers steps from 1. */
  steps: number;
  calls: Ring<CallRecord>;
  /** Calls of the latest step with calls, waiting for their results. */
  awaiting: CallRecord[];
  recent: Ring<StepKey>;
  monologue: MonologueState;
  window: Ring<WindowEntry>;
  long: LongWindow | undefined;
  /** Detections per loop id, for escalation. */
  loops: Map<string, number>;
  pending: LoopHint | undefined;
}

/** The text embedded by `warmUp`: any short text loads the model. */
const WARM_UP_TEXT = 'loop detector warm-up';
/** Budget of the warm-up embedding: long enough to load a local model, short enough that a dead embedder cannot hang startup. */
export const DEFAULT_LOOP_WARM_UP_TIMEOUT_MS = 30_000;

/**
 * Creates a loop detector (DESIGN.md section 8): feed it each step of a session and it reports when the agent goes
 * round in circles, literally (the same call and result, the same error, the same message, an A/B alternation, a
 * cycle of calls, a passage repeated within one response) or, with an embedder, semantically (a step whose
 * embedding is cosine > `threshold` to one of the last `window` steps that is not a word-for-word repeat of it;
 * those are left to the structural checks and their thresholds). The first detection of a loop asks for a hint, the
 * next for a stronger hint, the third for the end of the run.
 *
 * Fail-open: an embedder that fails, returns an invalid vector or takes longer than `timeoutMs` leaves the step to
 * the structural checks; the miss is counted and logged once per cause. Nothing here throws after construction.
 * Sessions (and tenants) never see each other's history; memory is bounded by `ttlMs` and `maxSessions`.
 * @param options See {@link LoopDetectorOptions}; all optional.
 * @throws {InvalidOptionError} when an option is invalid or unknown, naming it, the value and the fix.
 * @example
 * const detector = createLoopDetector({ embedder: createLexicalEmbedder(), exemptTools: ['check_status'] });
 * await detector.warmUp();
 * // after each model response:
 * const report = await detector.observe(sessionId, { text: turn.content, toolCalls: turn.toolCalls });
 * if (report?.action === 'stop') throw new LoopDetectedError({ report, sessionId });
 * // before the next model call:
 * await detector.observe(sessionId, { toolResults: toolResultsAfterLastTurn(messages) });
 * const hint = detector.takePendingHint(sessionId); // inject hint.text as a system note
 */
export function createLoopDetector(options: LoopDetectorOptions = {}): LoopDetector {
  const config = resolveLoopOptions(options);
  const { clock, logger } = config;
  const misses = config.missCounter ?? createMissCounter(logger);
  const prepare = createStepPreparer(config);
  const callCapacity = Math.max(config.repeatedAction || 1, config.repeatedError || 1, config.toolCycle ? config.toolCycle.maxLength * config.toolCycle.repetitions : 1);
  const store = createLoopSessionStore<LoopSession>({
    ttlMs: config.ttlMs,
    maxSessions: config.maxSessions,
    clock,
    create: () => ({
      steps: 0,
      calls: new Ring(callCapacity),
      awaiting: [],
      recent: new Ring(config.alternation || 0),
      monologue: initialMonologue(),
      window: new Ring(config.window),
      long: undefined,
      loops: new Map(),
      pending: undefined,
    }),
  });
  const serialised = createKeyedQueue();
  const embedding = config.embedder && createEmbedding(config.embedder, config);

  const keyOf = (sessionId: string, options: LoopObserveOptions | undefined) => sessionKey(String(options?.tenant ?? ''), String(sessionId));

  /** Runs the structural checks on a prepared step, updating the session; returns the findings in priority order. */
  function checkStructure(session: LoopSession, step: PreparedStep): { findings: LoopFinding[]; stepNumber: number } {
    if (step.kind === 'empty') return { findings: [], stepNumber: session.steps };
    if (step.kind === 'results') {
      const answered = attachResults(session.calls, session.awaiting, step.results);
      return { findings: answered ? resultFindings(session) : [], stepNumber: answered?.step ?? session.steps };
    }
    const stepNumber = ++session.steps;
    if (step.kind === 'exempt') {
      breakMonologue(session.monologue); // a poll is something in between
      // Its own results pair with nothing (exempt calls are not recorded); results of earlier calls still count.
      const answered = step.results.length > 0 && attachResults(session.calls, session.awaiting, step.results);
      return { findings: answered ? resultFindings(session) : [], stepNumber };
    }
    const findings: LoopFinding[] = [];
    let cycle: LoopFinding | null = null;
    if (step.calls.length > 0) {
      session.awaiting = step.calls.map((call) => callRecord(call, stepNumber));
      for (const record of session.awaiting) {
        session.calls.push(record);
        // Checked after every call, so a cycle completed by a call in the middle of a step is still caught.
        if (config.toolCycle && cycle === null) cycle = findToolCycle(session.calls, config.toolCycle);
      }
    }
    if (step.results.length > 0 && attachResults(session.calls, session.awaiting, step.results)) findings.push(...resultFindings(session));
    if (cycle) findings.push(cycle);
    if (config.alternation) {
      session.recent.push({ key: step.key, step: stepNumber });
      const alternation = findAlternation(session.recent, config.alternation);
      if (alternation) findings.push(alternation);
    }
    if (step.calls.length > 0) breakMonologue(session.monologue);
    else if (config.monologue) {
      const monologue = observeMonologue(session.monologue, step, stepNumber, config.monologue);
      if (monologue) findings.push(monologue);
    }
    if (config.repeatedText && step.text !== '') {
      const repeated = findRepeatedText(step.text, stepNumber, config.repeatedText);
      if (repeated) findings.push(repeated);
    }
    return { findings, stepNumber };
  }

  function resultFindings(session: LoopSession): LoopFinding[] {
    const findings: LoopFinding[] = [];
    const error = config.repeatedError && findRepeatedError(session.calls, config.repeatedError);
    if (error) findings.push(error);
    const action = config.repeatedAction && findRepeatedAction(session.calls, config.repeatedAction);
    if (action) findings.push(action);
    return findings;
  }

  /** Embeds the step and compares it with the session's windows; `null` when nothing matched or the embedder failed. */
  async function checkSemantic(session: LoopSession, step: Extract<PreparedStep, { kind: 'step' }>, stepNumber: number): Promise<LoopFinding | null> {
    const at = clock.now();
    // A literal repeat of a step still in the window has that step's embedding: no need to ask the embedder again.
    const vector = sameStepIn(session.window, step.key)?.vector ?? (await embedding!.embed(subjectOf(step)));
    if (vector === undefined) return null;
    let match: (WindowMatch & { window: 'short' | 'long' }) | null = null;
    const near = bestInWindow(session.window, vector, step.key, at, config.ttlMs);
    if (near && near.similarity > config.threshold) match = { ...near, window: 'short' };
    const longWindow = config.longWindow;
    if (longWindow) {
      try {
        session.long ??= createLongWindow(longWindow, logger);
        if (match === null) {
          const far = session.long.search(vector, step.key, at, config.ttlMs);
          if (far && far.similarity > config.threshold) match = { ...far, window: 'long' };
        }
      } catch (error) {
        misses.record('internal', 'The loop detector’s long-window index failed; the step was compared with the short window only.', error);
      }
    }
    const cluster = match ? match.cluster : stepNumber;
    session.window.push({ vector, key: step.key, step: stepNumber, at, cluster });
    try {
      session.long?.add(vector, step.key, stepNumber, at, cluster);
    } catch (error) {
      misses.record('internal', 'The loop detector’s long-window index failed to store a step.', error);
    }
    if (match === null) return null;
    return {
      kind: 'semantic',
      loopId: `semantic:${match.cluster}`,
      evidence: { steps: [match.step, stepNumber], repetitions: 2, similarity: match.similarity, window: match.window },
      detail: `your latest step is almost the same as one you took ${stepNumber - match.step === 1 ? 'just before' : `${stepNumber - match.step} steps ago`}`,
    };
  }

  /** Escalates every finding of a step, picks the strongest, queues its hint and builds the report. */
  function respond(session: LoopSession, sessionId: string, tenant: string, findings: LoopFinding[], stepNumber: number): LoopReport | null {
    if (findings.length === 0) return null;
    const escalated = findings.map((finding) => {
      const detection = recordDetection(session.loops, finding.loopId);
      return { finding, detection, action: actionFor(detection, config.escalation) };
    });
    // The strongest action wins; among equals, the first finding (structural before semantic).
    const primary = escalated.reduce((best, candidate) => (ACTION_RANK[candidate.action] > ACTION_RANK[best.action] ? candidate : best));
    const { finding, detection, action } = primary;
    const hint = renderLoopText(config.texts[action], finding.detail);
    const where = tenant === '' ? `session '${sessionId}'` : `session '${sessionId}' of tenant '${tenant}'`;
    const report: LoopReport = {
      ...finding,
      step: stepNumber,
      detection,
      action,
      hint,
      message: `Loop detected in ${where} at step ${stepNumber} (${finding.kind}, detection ${detection}): ${finding.detail}. Suggested action: ${action}.`,
      also: escalated.filter((entry) => entry !== primary).map((entry) => ({ ...entry.finding, detection: entry.detection })),
    };
    if (session.pending === undefined || ACTION_RANK[action] >= ACTION_RANK[session.pending.action]) {
      session.pending = { action, text: hint, kind: finding.kind, loopId: finding.loopId, step: stepNumber };
    }
    return report;
  }

  function observeStructural(sessionId: string, step: LoopStep, options?: LoopObserveOptions): LoopReport | null {
    try {
      const session = store.get(keyOf(sessionId, options));
      const { findings, stepNumber } = checkStructure(session, prepare(step));
      return respond(session, String(sessionId), String(options?.tenant ?? ''), findings, stepNumber);
    } catch (error) {
      misses.record('internal', 'The loop detector failed on a step; the step was not checked.', error);
      return null;
    }
  }

  async function observeWithEmbedding(sessionId: string, step: LoopStep, options?: LoopObserveOptions): Promise<LoopReport | null> {
    try {
      const session = store.get(keyOf(sessionId, options));
      const prepared = prepare(step);
      const { findings, stepNumber } = checkStructure(session, prepared);
      if (prepared.kind === 'step') {
        const semantic = await checkSemantic(session, prepared, stepNumber);
        if (semantic) findings.push(semantic);
      }
      return respond(session, String(sessionId), String(options?.tenant ?? ''), findings, stepNumber);
    } catch (error) {
      misses.record('internal', 'The loop detector failed on a step; the step was not checked.', error);
      return null;
    }
  }

  return {
    observe: (sessionId, step, options) =>
      embedding === undefined
        ? Promise.resolve(observeStructural(sessionId, step, options))
        : // One at a time per session: the embedding is awaited, and steps must enter the windows in order.
          serialised(keyOf(sessionId, options), () => observeWithEmbedding(sessionId, step, options)),
    observeStructural,
    takePendingHint(sessionId, options) {
      const session = store.peek(keyOf(sessionId, options));
      const pending = session?.pending;
      if (session) session.pending = undefined;
      return pending;
    },
    resetSession(sessionId, options) {
      store.delete(keyOf(sessionId, options));
    },
    warmUp: ({ timeoutMs = DEFAULT_LOOP_WARM_UP_TIMEOUT_MS } = {}) => (embedding ? embedding.warmUp(timeoutMs) : Promise.resolve(false)),
    misses: () => misses.counts(),
    get sessionCount() {
      return store.size;
    },
  };

  /** The embedder under the time budget, with vectors checked and their length learnt from the first good one. */
  function createEmbedding(embedder: Embedder, { timeoutMs, timers, dimensions }: ResolvedLoopOptions) {
    const timed = withTimeout(embedder, { timeoutMs, timers });
    let expected = dimensions;
    const accept = (vector: unknown): Float32Array => {
      assertEmbedding(vector, expected);
      expected ??= vector.length;
      return unitVector(vector);
    };
    return {
      async embed(subject: string): Promise<Float32Array | undefined> {
        try {
          return accept(await timed.embedQuery(subject));
        } catch (error) {
          misses.record('embedding', `The loop detector’s embedder ${describeFailure(error, timeoutMs)}; the step was checked structurally only.`, error);
          return undefined;
        }
      },
      async warmUp(warmUpTimeoutMs: number): Promise<boolean> {
        try {
          // A budget of its own: a model that loads lazily may take seconds the first time, which is the point of warming up.
          accept(await withTimeout(embedder, { timeoutMs: warmUpTimeoutMs, timers }).embedQuery(WARM_UP_TEXT));
          return true;
        } catch (error) {
          misses.record('embedding', `The loop detector’s embedder ${describeFailure(error, warmUpTimeoutMs)} while warming up; steps are checked structurally until it answers.`, error);
          return false;
        }
      },
    };
  }
}

function sameStepIn(window: Ring<WindowEntry>, key: number): WindowEntry | undefined {
  for (let back = 0; back < window.length; back++) {
    const entry = window.fromEnd(back)!;
    if (entry.key === key) return entry;
  }
  return undefined;
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (EmbedderTimeoutError.isInstance(error)) return `did not answer within ${timeoutMs} ms`;
  if (InvalidEmbeddingError.isInstance(error)) return `returned an invalid vector (${error.problem})`;
  return 'failed';
}
