import { InvalidOptionError } from '../errors/index.js';
import { createMissCounter } from '../monitor/fail-open.js';
import { createKeyedQueue } from '../monitor/keyed-queue.js';
import { createTelemetry, instrumentLoopDetector } from '../telemetry/index.js';
import { DEFAULT_LOOP_WARM_UP_TIMEOUT_MS, createLoopEmbedding } from './embedding.js';
import { escalateFindings } from './escalation.js';
import { resolveLoopOptions, type LoopDetectorOptions } from './options.js';
import { createStepPreparer } from './prepare-step.js';
import { createSemanticCheck } from './semantic-check.js';
import { sessionFactory, type LoopSession } from './session.js';
import { createLoopSessionStore, sessionKey } from './session-store.js';
import { createStreamWatch } from './stream-watch.js';
import { fromLoopSnapshot, isLoopSnapshot, withLongWindowOf, toLoopSnapshot } from './session-snapshot.js';
import { checkStructure, observeTurnEvents } from './structure.js';
import type { LoopDetector, LoopObserveOptions, LoopReport, LoopStep } from './types.js';

/**
 * Creates a loop detector: feed it each step of a session and it reports when the agent goes
 * round in circles, literally (the same call and result, the same error, the same message, an A/B alternation, a
 * cycle of calls, a passage repeated within one response) or, with an embedder, semantically (a step whose
 * embedding is cosine > `threshold` to one of the last `window` steps that is not a word-for-word repeat of it;
 * those are left to the structural checks and their thresholds). The first detection of a loop asks for a hint, the
 * next for a stronger hint, the third for the end of the run.
 *
 * Fail-open: an embedder that fails, returns an invalid vector or takes longer than `timeoutMs` leaves the step to
 * the structural checks; the miss is counted and logged once per cause. `observe` never throws or rejects.
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
  const telemetry = createTelemetry({
    ...(options.tracer ? { tracer: options.tracer } : {}),
    ...(options.meter ? { meter: options.meter } : {}),
    ...(options.telemetry === false ? { telemetry: false } : {}),
    onFailure: (error) => misses.record('telemetry', 'The OpenTelemetry SDK threw; the loop span or metric was dropped.', error),
  });
  const misses = config.missCounter ?? createMissCounter(logger, telemetry);
  const prepare = createStepPreparer({ ...config, comparesTexts: Boolean(config.monologue || config.alternation || config.embedder) });
  const createSession = sessionFactory(config);
  const store = createLoopSessionStore<LoopSession>({ ttlMs: config.ttlMs, maxSessions: config.maxSessions, clock, create: createSession });
  const serialised = createKeyedQueue();
  const embedding = config.embedder && createLoopEmbedding(config.embedder, config, misses);
  const checkSemantic = embedding && createSemanticCheck({ embedding, config, clock, logger, misses });

  const tenantOf = (options: LoopObserveOptions | undefined) => String(options?.tenant ?? '');
  const keyOf = (sessionId: string, options: LoopObserveOptions | undefined) => sessionKey(tenantOf(options), String(sessionId));

  function observeStructural(sessionId: string, step: LoopStep, options?: LoopObserveOptions): LoopReport | null {
    try {
      const session = store.get(keyOf(sessionId, options));
      const events = observeTurnEvents(session, step, config);
      const { findings, stepNumber } = checkStructure(session, prepare(step), config);
      findings.push(...events);
      return escalateFindings(session, findings, config, { sessionId: String(sessionId), tenant: tenantOf(options), stepNumber });
    } catch (error) {
      misses.record('internal', 'The loop detector failed on a step; the step was not checked.', error);
      return null;
    }
  }

  async function observeWithEmbedding(sessionId: string, step: LoopStep, options?: LoopObserveOptions): Promise<LoopReport | null> {
    try {
      const session = store.get(keyOf(sessionId, options));
      const events = observeTurnEvents(session, step, config);
      const prepared = prepare(step);
      const { findings, stepNumber } = checkStructure(session, prepared, config);
      findings.push(...events);
      if (prepared.kind === 'step' && (prepared.text !== '' || prepared.calls.length > 0)) {
        const semantic = await checkSemantic!(session, prepared, stepNumber);
        if (semantic) findings.push(semantic);
      }
      return escalateFindings(session, findings, config, { sessionId: String(sessionId), tenant: tenantOf(options), stepNumber });
    } catch (error) {
      misses.record('internal', 'The loop detector failed on a step; the step was not checked.', error);
      return null;
    }
  }

  return instrumentLoopDetector<LoopReport, LoopDetector>({
    observe: (sessionId, step, options) =>
      embedding === undefined
        ? Promise.resolve(observeStructural(sessionId, step, options))
        : // One at a time per session: the embedding is awaited, and steps must enter the windows in order.
          Promise.resolve(serialised(keyOf(sessionId, options), () => observeWithEmbedding(sessionId, step, options))),
    observeStructural,
    takePendingHint(sessionId, options) {
      const session = store.peek(keyOf(sessionId, options));
      const pending = session?.pending;
      if (session) session.pending = undefined;
      return pending;
    },
    peekPendingHint(sessionId, options) {
      return store.peek(keyOf(sessionId, options))?.pending;
    },
    watchStream: () => createStreamWatch(config, (error) => misses.record('internal', 'The loop detector failed on a streamed response; the rest of it was not watched.', error)),
    resetSession(sessionId, options) {
      store.delete(keyOf(sessionId, options));
    },
    exportSession(sessionId, options) {
      const session = store.peek(keyOf(sessionId, options));
      return session && toLoopSnapshot(session);
    },
    importSession(sessionId, snapshot, options) {
      const key = keyOf(sessionId, options);
      if (isLoopSnapshot(snapshot)) store.put(key, withLongWindowOf(store.peek(key), fromLoopSnapshot(snapshot, createSession)));
      else store.delete(key); // nothing shared yet: start afresh rather than from this process's older copy
    },
    async warmUp({ timeoutMs = DEFAULT_LOOP_WARM_UP_TIMEOUT_MS } = {}) {
      if (!(typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs > 0)) {
        throw new InvalidOptionError({ parameter: 'timeoutMs', value: timeoutMs, fix: 'Pass a positive number of milliseconds for the warm-up; the default is 30000.' });
      }
      return embedding ? embedding.warmUp(timeoutMs) : false;
    },
    misses: () => misses.counts(),
    get sessionCount() {
      return store.size;
    },
  }, telemetry);
}
