import type { ClassificationResult } from '../classify/index.js';
import { createSyncFirstClassifier } from '../classify/classifier.js';
import { PATTERN_CONFIDENCE } from '../classify/patterns.js';
import { systemClock, systemTimers, type Timers } from '../clock/index.js';
import { InvalidOptionError, isHostControlFlow, WorkflowViolationError } from '../errors/index.js';
import { applyInterventions, type InterventionPlan, type RenderedIntervention } from '../intervene/index.js';
import { createLoopDetector, LoopDetectedError, toolResultsAfterLastTurn, type LoopDetector, type LoopDetectorOptions, type LoopHint, type LoopReport } from '../loops/index.js';
import type { AssistantTurn, ChatMessage, ToolCall } from '../messages/index.js';
import { createMemorySessionStore } from '../store/index.js';
import {
  canWithhold,
  classifyUserTurn,
  createSnapshot,
  groundedArgumentsOf,
  hasUserTurnStates,
  keepsAnswered,
  DEFAULT_HISTORY_LIMIT,
  noteRefusals,
  takeInterventions,
  transition,
  verdictsOf,
  type WorkflowEffect,
  type WorkflowEvent,
} from '../workflow/index.js';
import { createEmitter } from './events.js';
import { createMissCounter } from './fail-open.js';
import { registryOf } from '../registry/index.js';
import { createKeyedQueue } from './keyed-queue.js';
import { pendingIndex, previewCall, runAhead } from './pending-calls.js';
import { answeredText, callFinder } from './grounding-input.js';
import { andThen, isPromiseLike, TimedOut, within, type MaybePromise } from '../async/index.js';
import { createConversationSessions } from '../session/index.js';
import { sessionShapeOf } from './session-shape.js';
import { DEFAULT_GUARD_TIMEOUT_MS, DEFAULT_STORE_TIMEOUT_MS } from './defaults.js';
import { refusalText } from './refusal-text.js';
import { createSessionIo } from './session-io.js';
import { registerSyncFirst, type SyncFirstMonitor } from './sync-first.js';
import type { Span } from '@opentelemetry/api';
import {
  ATTR,
  classificationAttributes,
  countEffects,
  createTelemetry,
  EVENT,
  guardrailMarkers,
  loopAttributes,
  OPERATION,
  recordEffects,
  recordIntervention,
  SPAN,
  telemetryOptionsOf,
  withheldAttributes,
  type Telemetry,
} from '../telemetry/index.js';
import { createTextWatch } from './text-watch.js';
import { historyOf } from './history.js';
import { createLifecycle, flushTelemetry } from '../lifecycle/index.js';
import { nextStatesOf } from './next-states.js';
import { attachDecisionLog, debugFromEnvironment } from './debug-log.js';
import { withholdDecision } from './withhold-decision.js';
import { memberOptionsOf } from './member.js';
import { createStateJudge } from './state-judge.js';
import type {
  AfterModelOptions,
  AfterModelResult,
  BeforeModelResult,
  BeforeToolResult,
  Monitor,
  MonitorEvents,
  MonitorOptions,
  ModelRequest,
  MonitorSession,
  PendingToolState,
  SessionReport,
  StepRecord,
  ToolGuard,
  ToolGuardVerdict,
} from './types.js';

/**
 * Creates a workflow monitor: give it each model request and response of a session, and it knows which state the
 * agent is in, which constraints hold, and what to inject into or refuse on the next call.
 *
 * Calls for one session run one at a time, in the order made; sessions are independent. Panoptes' own failures
 * (embedder, store, listeners) never fail a call: they are counted and logged once per cause.
 * @throws {InvalidOptionError} when `historyLimit` is not a positive whole number or Infinity.
 * @example
 * const monitor = createMonitor({ workflow: await loadWorkflow('support.yaml') });
 * const before = await monitor.beforeModel('s1', { messages });
 * if (before.action === 'block') throw before.error;
 * const response = await callModel(before.messages);
 * await monitor.afterModel('s1', { content: response.text, toolCalls: response.toolCalls });
 */
export function createMonitor({
  workflow,
  registry: registryOption,
  tiers = [],
  embeddings,
  embeddingTimeoutMs,
  clock = systemClock,
  historyLimit = DEFAULT_HISTORY_LIMIT,
  logger = console,
  loops: loopsOption = false,
  store: storeOption,
  storeTimeoutMs = DEFAULT_STORE_TIMEOUT_MS,
  guardTimeoutMs = DEFAULT_GUARD_TIMEOUT_MS,
  warmUpTimeoutMs,
  timers = systemTimers,
  debug = debugFromEnvironment(),
  judge,
  ...telemetryOptions
}: MonitorOptions): Monitor {
  if (!(historyLimit === Infinity || (Number.isInteger(historyLimit) && historyLimit > 0))) {
    throw new InvalidOptionError({ parameter: 'historyLimit', value: historyLimit, fix: 'Pass a positive whole number, or Infinity to keep everything; the default is 100.' });
  }
  assertMilliseconds('storeTimeoutMs', storeTimeoutMs, 'the default is 1000');
  assertMilliseconds('guardTimeoutMs', guardTimeoutMs, 'the default is 30000');
  const store = storeOption ?? createMemorySessionStore<MonitorSession>({ clock });
  const telemetry = createTelemetry({ ...telemetryOptionsOf(telemetryOptions), onFailure: (error) => misses.record('telemetry', TELEMETRY_FAILED, error) });
  const misses = createMissCounter(logger, telemetry);
  const events = createEmitter((error) => misses.record('listener', 'A monitor event listener threw or rejected.', error));
  const registry = registryOption ?? registryOf(workflow);
  const classifier = createSyncFirstClassifier({
    workflow,
    timers,
    tiers: [...registry.tiers(), ...tiers],
    onTierFailure: (tier, error) => misses.record('tier', `Classification tier '${tier}' failed (${messageOf(error)}); the turn went on down the cascade.`, error),
    ...(embeddings ? { embeddings } : {}),
    ...(embeddingTimeoutMs ? { embeddingTimeoutMs } : {}),
    ...(warmUpTimeoutMs ? { warmUpTimeoutMs } : {}),
  });
  const strategyOptions = {
    strategies: registry.strategy,
    onError: (strategy: string, error: unknown) => misses.record('strategy', `Intervention strategy '${strategy}' failed (${messageOf(error)}); the call went on without its interventions.`, error),
  };
  const queue = createKeyedQueue();
  // A store shared between processes serialises each session's calls across them too (see SessionStore.exclusive).
  const exclusive = storeOption?.exclusive?.bind(storeOption);
  // With loop detection, such a store carries the loop history too, in the session (`loops`): each call reads it back
  // into the detector with the session and writes it after the call's loop checks, so a process that takes a session
  // over continues its history.
  const serialised: typeof queue = exclusive
    ? (sessionId, task) => queue(sessionId, () => exclusive(sessionId, sharesLoops ? () => andThen(task(), (result) => andThen(saveLoops(sessionId), () => result)) : task))
    : queue;
  const loops = resolveLoopDetector(loopsOption, {
    ...(embeddings ? { embedder: embeddings } : {}),
    clock,
    logger,
    missCounter: misses,
    ...(telemetryOptions.tracer ? { tracer: telemetryOptions.tracer } : {}),
    ...(telemetryOptions.meter ? { meter: telemetryOptions.meter } : {}),
    ...(telemetryOptions.telemetry === false ? { telemetry: false } : {}),
  });
  const sharesLoops = Boolean(exclusive && loops?.exportSession && loops.importSession);
  /** Sessions read or written by the call running for them (a shared store with loops only), for `saveLoops`. */
  const latest = new Map<string, MonitorSession>();
  /** Emits the events of a transition's effects, and counts its violations. */
  const emitEffects = (sessionId: string, effects: readonly WorkflowEffect[]): void => {
    if (effects.length > 0) countEffects(telemetry, effects);
    for (const effect of effects) {
      if (effect.type === 'constraint-failed') misses.record('constraint', `Constraint '${effect.constraint}' failed in session '${sessionId}' (${effect.reason}); it stays pending for that session.`);
    }
    events.emitEffects(sessionId, effects);
  };
  // A monitor of several workflows makes one per workflow, all keeping conversations in its registry (member.ts).
  const member = memberOptionsOf(telemetryOptions);
  const conversations = member?.conversations ?? createConversationSessions<MonitorSession>();
  /** Queues notes for a session's next call: refusals a host's model never reads, the judge's findings on states. */
  const noteForNextCall = async (sessionId: string, reasons: readonly string[]): Promise<void> =>
    serialised(sessionId, async () => {
      if (reasons.length === 0) return;
      const session = activeOrFresh(await load(sessionId));
      const snapshot = noteRefusals(workflow, session.workflow, reasons);
      if (snapshot !== session.workflow) await save(sessionId, sessionRecord(snapshot, session.turns, session.steps, session.stepCount, session.pendingToolStates, session.ranToolCalls));
    });
  // Rubrics on states: judged beside afterModel, never holding it; a finding is a note on the next call.
  const stateJudge = judge
    ? createStateJudge({ judge, logger, misses, emit: (report) => events.emit('judgment', report as MonitorEvents['judgment']), note: (sessionId, text) => noteForNextCall(sessionId, [text]) })
    : undefined;
  let warming: Promise<void> | undefined;
  const warmUp = (): Promise<void> => {
    warming ??= Promise.all([classifier.warmUp(), loops?.warmUp()]).then(
      () => undefined,
      (error: unknown) => {
        warming = undefined; // a later ready() tries again
        throw error;
      },
    );
    return warming;
  };
  // Warm up at once so the first real call is not a cold start; a failure here is reported, not thrown.
  if (embeddings) warmUp().catch((error: unknown) => misses.record('embedding', 'Embedding the workflow exemplars failed or ran out of time; responses are classified without them until a retry succeeds.', error));

  const freshSession = (): MonitorSession => {
    const snapshot = createSnapshot(workflow, { at: clock.now(), historyLimit });
    // A registered constraint type whose `start` threw is pending for good: counted like a failed step.
    for (const [name, state] of Object.entries(snapshot.monitors)) {
      if (state.failed !== undefined) misses.record('constraint', `Constraint '${name}' failed to start (${state.failed}); it stays pending for every new session.`);
    }
    return { workflow: snapshot, turns: 0, steps: [], stepCount: 0, pendingToolStates: [] };
  };

  // A new session usually has nothing due either; one whose initial state already dooms a constraint has guidance.
  const freshSessionIsIdle = isIdle(freshSession());
  /** A new session's snapshot, for reads that need only its state and monitors (`watchText`). */
  let idleSnapshot: MonitorSession['workflow'] | undefined;
  /** What a text watch reports when its host stopped holding a response past a bound. */
  const overflowed = (bound: 'bytes' | 'time') => misses.record('hold', `Held text passed its ${bound === 'bytes' ? 'byte' : 'time'} bound; the rest of the response streamed unheld, watched by patterns only.`);
  const io = createSessionIo(store, misses, { timeoutMs: storeTimeoutMs, timers, isSession: storeOption ? sessionShapeOf(workflow) : isAnything });
  // A session made as a fork of a conversation starts from the state its source had (see ConversationSessions).
  const load = (sessionId: string): MaybePromise<MonitorSession | undefined> =>
    andThen(io.load(sessionId), (stored) => {
      if (sharesLoops) {
        loops!.importSession!(sessionId, stored?.loops);
        if (stored) latest.set(sessionId, stored);
      }
      return stored ?? conversations.forkSource(sessionId);
    });
  const save = (sessionId: string, session: MonitorSession): MaybePromise<void> => {
    conversations.keep(sessionId, session);
    if (sharesLoops) latest.set(sessionId, session);
    return io.save(sessionId, session);
  };
  /** After a call on a shared store: the session as last read or written, with the detector's history for it. */
  const saveLoops = (sessionId: string): MaybePromise<void> => {
    const session = latest.get(sessionId);
    latest.delete(sessionId);
    const history = loops!.exportSession!(sessionId);
    if (!session || history === undefined) return undefined;
    return io.save(sessionId, { ...session, loops: history });
  };

  /** The session to continue: the stored one while it is active, else a new one. */
  const activeOrFresh = (stored: MonitorSession | undefined): MonitorSession => (stored && stored.workflow.status === 'active' ? stored : freshSession());

  /** Applies one workflow event to the session, collecting its effects. */
  function apply(session: MonitorSession, event: WorkflowEvent, effects: WorkflowEffect[]): MonitorSession {
    const result = transition(workflow, session.workflow, event);
    effects.push(...result.effects);
    return result.snapshot === session.workflow ? session : sessionRecord(result.snapshot, session.turns, session.steps, session.stepCount, session.pendingToolStates, session.ranToolCalls);
  }

  /**
   * Tool-call states whose call was never checked by `beforeTool` did run: they enter now, in call order, with those
   * of calls checked and allowed that waited for them.
   */
  function flushPending(session: MonitorSession, effects: WorkflowEffect[]): MonitorSession {
    if (session.pendingToolStates.length === 0) return session;
    // The unchecked ones' ids are kept until the next flush, for a check of one of them that comes late (beforeToolWith).
    const ranToolCalls = session.pendingToolStates.flatMap((pending) => (pending.toolCallId === undefined || pending.allowed ? [] : [pending.toolCallId]));
    let next: MonitorSession = sessionRecord(session.workflow, session.turns, session.steps, session.stepCount, [], ranToolCalls.length > 0 ? ranToolCalls : undefined);
    for (const pending of session.pendingToolStates) next = apply(next, enterEvent(pending.state, pending.confidence, 'tool_call', pending.step, undefined, argsOf(pending)), effects);
    return next;
  }

  const enterEvent = (state: string, confidence: number, method: StepRecord['method'], step: number, metadata?: Record<string, unknown>, grounding?: { args?: Record<string, unknown>; answered?: string }): WorkflowEvent => ({
    type: 'enter',
    state,
    at: clock.now(),
    confidence,
    method,
    step,
    ...(metadata ? { metadata } : {}),
    ...grounding,
  });
  /** A waiting call's arguments as grounded constraints read them (kept only for their triggers). */
  const argsOf = (pending: PendingToolState) => (pending.args === undefined ? undefined : { args: pending.args });

  /** One step record per classification, numbered after the session's last. */
  function stepRecords(session: MonitorSession, results: readonly ClassificationResult[], turn: number, withheld = false, regenerated = false): StepRecord[] {
    const elapsedMs = clock.now() - session.workflow.startedAt;
    return results.map((result, offset) => {
      const step: StepRecord = { index: session.stepCount + offset + 1, turn, state: result.state, method: result.method, confidence: result.confidence, elapsedMs };
      if (withheld) step.withheld = true;
      if (regenerated) step.regenerated = true;
      return step;
    });
  }

  /** The session with these steps recorded (the last `historyLimit` are kept), and the turn count and tool-call states given. */
  function withSteps(session: MonitorSession, steps: readonly StepRecord[], turns = session.turns, pendingToolStates = session.pendingToolStates): MonitorSession {
    return sessionRecord(session.workflow, turns, lastOf(session.steps, steps, historyLimit), session.stepCount + steps.length, pendingToolStates, session.ranToolCalls);
  }

  function countEmbeddingMisses(results: ClassificationResult[]): void {
    for (let index = 0; index < results.length; index++) {
      const evidence = results[index]!.evidence;
      if (evidence.kind !== 'fallback') continue;
      if (evidence.reason === 'embedding-failed') misses.record('embedding', 'The embedder failed or ran out of time; the response was classified without embeddings.', evidence.error);
      else if (evidence.reason === 'warming-up') misses.record('embedding', 'The exemplars were still being embedded after the embedding budget; the response was classified without them (await monitor.ready() at startup).');
    }
  }

  function reportOf(sessionId: string, session: MonitorSession): SessionReport {
    const snapshot = session.workflow;
    return {
      sessionId,
      workflow: snapshot.workflow,
      status: snapshot.status,
      state: snapshot.state,
      trace: snapshot.trace,
      steps: session.steps,
      violations: snapshot.violations,
      deviations: snapshot.deviations,
      refusals: snapshot.refusals,
      verdicts: verdictsOf(snapshot),
      doomed: snapshot.doomed,
    };
  }

  /**
   * Completes the last turn's calls with the results now in the request, then takes the loop hint due on this call.
   * A request that ends with a user message starts a new user turn, where the loop counts start afresh.
   */
  function takeLoopHint(sessionId: string, request: ModelRequest): MaybePromise<LoopHint | undefined> {
    if (!loops) return undefined;
    const userTurn = request.messages.at(-1)?.role === 'user';
    return loops.observe(sessionId, { toolResults: toolResultsAfterLastTurn(request.messages), ...(userTurn ? { userTurn } : {}) }).then((report) => {
      if (report) events.emit('loop', { sessionId, report });
      return loops.takePendingHint(sessionId);
    });
  }

  /** Gives the loop detector this turn's text and calls; null without loop detection. */
  function observeTurn(sessionId: string, turn: AssistantTurn): MaybePromise<LoopReport | null> {
    if (!loops) return null;
    return loops.observe(sessionId, {
      text: turn.content,
      toolCalls: turn.toolCalls,
      ...(turn.reasoning === undefined ? {} : { reasoning: turn.reasoning }),
      ...(turn.availableTools === undefined ? {} : { availableTools: turn.availableTools }),
    }).then((report) => {
      if (report) events.emit('loop', { sessionId, report });
      return report;
    });
  }

  const readsUserTurns = hasUserTurnStates(workflow);
  /** The state the user's message recognises, when the request ends with one (the user just spoke). */
  const userTurnState = (request: ModelRequest): string | undefined => {
    const last = request.messages.at(-1);
    if (last?.role !== 'user' || typeof last.content !== 'string') return undefined;
    return classifyUserTurn(workflow, last.content)?.state;
  };

  /** `beforeModel` on the loaded session: takes the interventions due and the loop hint, then says what the call does. */
  function beforeModelWith(sessionId: string, request: ModelRequest, stored: MonitorSession | undefined, effects: WorkflowEffect[]): MaybePromise<BeforeModelResult> {
    // Most calls have nothing due: the request goes on as it is, the session is not written back (a new one is first
    // written by afterModel), and the messages are not read (an adapter that builds them on demand then never
    // converts the conversation).
    const userTurn = readsUserTurns ? userTurnState(request) : undefined;
    if (!loops && userTurn === undefined && (stored ? isIdle(stored) : freshSessionIsIdle)) return unchanged(request);
    let session = flushPending(activeOrFresh(stored), effects);
    // The user's message, after the tool calls of the turn before it: a state recognised in the user's turn enters now.
    if (userTurn !== undefined) {
      const grounding = keepsAnswered(workflow.definition, userTurn) ? { answered: answeredText(request.messages) } : undefined;
      session = apply(session, enterEvent(userTurn, PATTERN_CONFIDENCE, 'pattern', session.stepCount, undefined, grounding), effects);
    }
    const { snapshot, plan } = takeInterventions(workflow, session.workflow);
    if (snapshot !== session.workflow) session = { ...session, workflow: snapshot };
    return andThen(session === stored ? undefined : save(sessionId, session), () => {
      emitEffects(sessionId, effects);
      return andThen(takeLoopHint(sessionId, request), (loopHint) => planCall(sessionId, request, plan, loopHint));
    });
  }

  /**
   * Proceed with the interventions (and the loop hint) applied to the request, or block it. A call that only enters
   * the last turn's tool-call states applies nothing, and leaves the messages unread, as an idle call does.
   */
  function planCall(sessionId: string, request: ModelRequest, plan: InterventionPlan, loopHint: LoopHint | undefined): BeforeModelResult {
    const apply = loopHint && loopHint.action !== 'stop' ? [...plan.apply, renderLoopHint(loopHint)] : plan.apply;
    const block = plan.block ?? (loopHint?.action === 'stop' ? { ...renderLoopHint(loopHint), strategy: 'hard-block' as const } : undefined);
    if (events.has('intervention')) for (const intervention of block ? [...apply, block] : apply) events.emit('intervention', { sessionId, intervention });
    if (block) {
      const error = plan.block
        ? new WorkflowViolationError({ intervention: block.name, modelMessage: block.text, sessionId })
        : new LoopDetectedError({ hint: loopHint!, sessionId });
      return { action: 'block', intervention: block, error };
    }
    return apply.length === 0 ? unchanged(request) : { action: 'proceed', messages: applyInterventions(request.messages, apply, strategyOptions), interventions: apply };
  }

  /** `afterModel` on the loaded session: classifies the turn from the state the session is in now. */
  function classifyTurn(sessionId: string, stored: MonitorSession | undefined, turn: AssistantTurn, options: AfterModelOptions): MaybePromise<AfterModelResult> {
    const effects: WorkflowEffect[] = [];
    const session = flushPending(activeOrFresh(stored), effects);
    const start = telemetry.now();
    return andThen(classifier.classify(turn, session.workflow.state), (classifications) => {
      telemetry.duration('classificationDuration', start);
      return afterModelWith(sessionId, session, turn, classifications, effects, options);
    });
  }

  /** `afterModel` once the turn is classified: records the steps, enters the text state, keeps tool-call states for `beforeTool`. */
  function afterModelWith(sessionId: string, classified: MonitorSession, turn: AssistantTurn, classifications: ClassificationResult[], effects: WorkflowEffect[], options: AfterModelOptions): MaybePromise<AfterModelResult> {
    countEmbeddingMisses(classifications);
    const turnNumber = classified.turns + 1;
    const withheld = options.withhold ? withholdDecision(workflow, classified.workflow, classifications) : undefined;
    const steps = stepRecords(classified, classifications, turnNumber, withheld !== undefined, options.regenerated === true);
    if (withheld) {
      // The user never sees it: recorded, with its guidance, and nothing enters the trace (see the `withhold` event).
      const session = apply(withSteps(classified, steps, turnNumber, []), { type: 'withhold', state: withheld.state, at: clock.now(), step: steps[0]!.index }, effects);
      return andThen(save(sessionId, session), () => {
        emitEffects(sessionId, effects);
        return andThen(observeTurn(sessionId, turn), (loop) => ({ classifications, withheld, toolPreviews: [], effects, loop }));
      });
    }
    const { metadata } = options;
    const pendingToolStates: PendingToolState[] = [];
    let session = withSteps(classified, steps, turnNumber, pendingToolStates);
    const calls = callFinder(turn.toolCalls);
    for (let offset = 0; offset < classifications.length; offset++) {
      const result = classifications[offset]!;
      const step = steps[offset]!.index;
      if (result.evidence.kind === 'tool_call') {
        const { toolName, toolCallId } = result.evidence;
        const call = calls(toolName, toolCallId);
        const args = call === undefined ? undefined : groundedArgumentsOf(workflow.definition, result.state, call.args);
        // `seen`: what the model had seen when it made the call; the response's other calls enter after it.
        pendingToolStates.push({ state: result.state, toolName, ...(toolCallId === undefined ? {} : { toolCallId }), step, confidence: result.confidence, seen: session.workflow.traceLength, ...(args === undefined ? {} : { args }) });
      } else if (result.state !== session.workflow.state) {
        // Staying in the current state adds nothing to the trace (a transition to it changes nothing).
        session = apply(session, enterEvent(result.state, result.confidence, result.method, step, metadata), effects);
      }
    }
    return andThen(save(sessionId, session), () => {
      emitEffects(sessionId, effects);
      return andThen(observeTurn(sessionId, turn), (loop) => afterModelResult(session, classifications, effects, loop));
    });
  }

  /** What `afterModel` returns; `toolPreviews` is worked out only if read. */
  function afterModelResult(session: MonitorSession, classifications: ClassificationResult[], effects: WorkflowEffect[], loop: LoopReport | null): AfterModelResult {
    if (session.pendingToolStates.length === 0) return { classifications, toolPreviews: [], effects, loop };
    let toolPreviews: AfterModelResult['toolPreviews'] | undefined;
    return {
      classifications,
      // Worked out on first read: it costs a transition per announced call, and hosts that check each call with
      // beforeTool (every adapter) never read it.
      get toolPreviews() {
        return (toolPreviews ??= previewTools(session));
      },
      effects,
      loop,
    };
  }

  /** `beforeTool` on the loaded session: the announced call this is, or a step for a call nobody announced. */
  function beforeToolWith(sessionId: string, session: MonitorSession, toolCall: ToolCall, guard: ToolGuard | undefined): MaybePromise<BeforeToolResult> {
    const index = pendingIndex(session.pendingToolStates, toolCall, session.ranToolCalls);
    if (index >= 0) return checkToolCall(sessionId, session, toolCall, index, guard);
    // A check that arrives after the next model call already entered this call's state (the host ran the tool and
    // went on first): the state is in the trace once; only the guard is still asked, as guards fail closed.
    if (toolCall.id !== undefined && session.ranToolCalls?.includes(toolCall.id)) {
      const ranToolCalls = session.ranToolCalls.filter((id) => id !== toolCall.id);
      return checkToolCall(sessionId, sessionRecord(session.workflow, session.turns, session.steps, session.stepCount, session.pendingToolStates, ranToolCalls.length > 0 ? ranToolCalls : undefined), toolCall, undefined, guard);
    }
    // A call the model response did not announce (or one already flushed): classify it by its name alone. It goes
    // first, so it is checked against the trace as it is and, once allowed, enters at once.
    return andThen(classifier.classify({ content: '', toolCalls: [toolCall] }, session.workflow.state), ([result]) => {
      if (result?.evidence.kind !== 'tool_call') return checkToolCall(sessionId, session, toolCall, undefined, guard);
      const [step] = stepRecords(session, [result], session.turns);
      const args = groundedArgumentsOf(workflow.definition, result.state, toolCall.args ?? {});
      const unannounced: PendingToolState = { state: result.state, toolName: toolCall.name, step: step!.index, confidence: 1, ...(args === undefined ? {} : { args }) };
      return checkToolCall(sessionId, withSteps(session, [step!], session.turns, [unannounced, ...session.pendingToolStates]), toolCall, 0, guard);
    });
  }

  /**
   * The pre-emptive check of one call, the waiting call at `index`: the workflow refuses it, or the guard does, or it
   * is allowed. It is checked against the trace as the calls before it leave it (`runAhead`), and an allowed call's
   * state enters once every earlier call is checked, so states enter in call order whatever order the checks come
   * in. A call the workflow does not classify (`index` undefined) is left to the guard and never enters the trace.
   */
  function checkToolCall(sessionId: string, session: MonitorSession, toolCall: ToolCall, index: number | undefined, guard: ToolGuard | undefined): MaybePromise<BeforeToolResult> {
    const effects: WorkflowEffect[] = [];
    const finish = (next: MonitorSession, result: BeforeToolResult) =>
      andThen(save(sessionId, next), () => {
        emitEffects(sessionId, effects);
        return result;
      });
    const guarded = (): MaybePromise<ToolGuardVerdict> => (guard ? runGuard(guard, toolCall, guardTimeoutMs, timers) : ALLOWED);
    if (index === undefined) {
      return andThen(guarded(), (verdict) => finish(session, verdict.allowed ? { action: 'allow', effects } : { action: 'deny', by: 'guard', reason: verdict.reason, ...userMessageOf(verdict), constraints: [], effects }));
    }
    const pending = session.pendingToolStates[index]!;
    const { state, step } = pending;
    const refused = (reason: string, constraints: string[], by: 'workflow' | 'guard', unseen = false): MonitorSession =>
      settle(apply(session, { type: 'refuse', state, at: clock.now(), reason, constraints, by, step, ...(unseen ? { unseen } : {}) }, effects), index, false, effects);
    const ahead = runAhead(workflow, session.workflow, session.pendingToolStates, index);
    const preview = previewCall(workflow, ahead, pending);
    if (preview.refuse) {
      const critical = preview.violations.filter((violation) => violation.severity === 'critical');
      const constraints = critical.map((violation) => violation.constraint);
      const reason = refusalText(workflow, ahead.state, pending, preview);
      const unseen = preview.allowed && critical.length > 0 && critical.every((violation) => violation.unseen);
      return finish(refused(reason, constraints, 'workflow', unseen), { action: 'deny', by: 'workflow', state, reason, constraints, effects });
    }
    return andThen(guarded(), (verdict) =>
      verdict.allowed
        ? finish(settle(session, index, true, effects), { action: 'allow', state, effects })
        : finish(refused(verdict.reason, [], 'guard'), { action: 'deny', by: 'guard', state, reason: verdict.reason, ...userMessageOf(verdict), constraints: [], effects }),
    );
  }

  /**
   * Records the check of the waiting call at `index` (allowed, or refused: it never runs), then enters the states of
   * the allowed calls that now lead the queue, in call order: a call checked before an earlier one waits for it.
   */
  function settle(session: MonitorSession, index: number, allowed: boolean, effects: WorkflowEffect[]): MonitorSession {
    const waiting = allowed ? session.pendingToolStates.map((entry, at) => (at === index ? { ...entry, allowed: true as const } : entry)) : session.pendingToolStates.filter((_, at) => at !== index);
    let next = session;
    let entered = 0;
    for (; entered < waiting.length && waiting[entered]!.allowed; entered++) {
      const entry = waiting[entered]!;
      next = apply(next, enterEvent(entry.state, entry.confidence, 'tool_call', entry.step, undefined, argsOf(entry)), effects);
    }
    return sessionRecord(next.workflow, next.turns, next.steps, next.stepCount, entered === 0 ? waiting : waiting.slice(entered), next.ranToolCalls);
  }

  // The calls on a model call's path, answered synchronously when nothing waits (see sync-first.ts), each traced
  // (src/telemetry: a span per check and per guard decision, one per model call that Panoptes changed).
  const syncFirst: SyncFirstMonitor = {
    beforeModel: (sessionId, request) => {
      // The span is made afterwards, and only when something happened: most calls have nothing due.
      const tracing = telemetry.tracing();
      const startTime = tracing ? Date.now() : undefined;
      const parent = tracing ? telemetry.activeContext() : undefined;
      const flushed: WorkflowEffect[] = [];
      return traced(telemetry, undefined, () => serialised(sessionId, () => andThen(load(sessionId), (stored) => beforeModelWith(sessionId, request, stored, flushed))), (result) => {
        const applied = result.action === 'block' ? [result.intervention] : result.interventions;
        if (applied.length === 0 && flushed.length === 0) return;
        if (!tracing) {
          for (const intervention of applied) recordIntervention(telemetry, undefined, intervention);
          return;
        }
        const span = telemetry.startSpan(SPAN.beforeModel, { ...sessionAttributes(sessionId, OPERATION.beforeModel), [ATTR.action]: result.action }, startTime, parent);
        recordEffects(telemetry, span, flushed);
        for (const intervention of applied) recordIntervention(telemetry, span, intervention);
        telemetry.end(span);
      });
    },
    afterModel: (sessionId, turn, options = {}) => {
      const span = telemetry.startSpan(SPAN.check, sessionAttributes(sessionId, OPERATION.check));
      if (span && telemetry.captureContent) telemetry.setAttributes(span, { [ATTR.content]: telemetry.content(turn.content) ?? '', ...(Array.isArray(turn.toolCalls) && turn.toolCalls.length > 0 ? { [ATTR.toolCallArguments]: telemetry.content(turn.toolCalls) ?? '' } : {}) });
      return traced(telemetry, span, () => serialised(sessionId, () => andThen(load(sessionId), (stored) => classifyTurn(sessionId, stored, normaliseTurn(turn), options))), (result) => {
        stateJudge?.afterTurn(sessionId, turn, result, options.messages);
        if (options.regenerated) telemetry.count('regenerations', { [ATTR.withheld]: result.withheld !== undefined });
        if (!span) return;
        telemetry.setAttributes(span, classificationAttributes(result.classifications));
        if (result.withheld) telemetry.setAttributes(span, withheldAttributes(result.withheld));
        recordEffects(telemetry, span, result.effects);
        if (result.loop) telemetry.event(span, EVENT.loop, loopAttributes(telemetry, result.loop));
      });
    },
    watchText: (sessionId) => {
      if (!canWithhold(workflow)) return undefined; // nothing could be withheld: no session read
      // A peek: the last turn's tool calls are taken as entered, as the response will find them, and nothing is saved.
      // A new session is read from one fresh snapshot: the watch needs its state and monitors, not its times.
      return serialised(sessionId, () =>
        andThen(load(sessionId), (stored) => createTextWatch(workflow, stored?.workflow.status === 'active' ? flushPending(stored, []).workflow : (idleSnapshot ??= freshSession().workflow), overflowed)),
      );
    },
    beforeTool: (sessionId, toolCall, { guard } = {}) => {
      const start = telemetry.now();
      const span = telemetry.startSpan(`${SPAN.guard} ${String(toolCall?.name)}`, { ...sessionAttributes(sessionId, OPERATION.guard), ...toolCallAttributes(telemetry, toolCall), ...guardrailMarkers(false) });
      return traced(telemetry, span, () => serialised(sessionId, () => andThen(load(sessionId), (stored) => beforeToolWith(sessionId, activeOrFresh(stored), toolCall, guard))), (result) => {
        telemetry.duration('guardDuration', start, { [ATTR.toolName]: toolCall.name });
        if (result.action === 'deny') telemetry.count('refusals', { [ATTR.toolName]: toolCall.name, [ATTR.refusedBy]: result.by });
        if (!span) return;
        telemetry.setAttributes(span, {
          [ATTR.guardResult]: result.action,
          ...(result.state === undefined ? {} : { [ATTR.state]: result.state }),
          ...(result.action === 'deny' ? { [ATTR.guardBy]: result.by, [ATTR.guardReason]: result.reason, [ATTR.constraints]: result.constraints, ...guardrailMarkers(true) } : {}),
        });
        recordEffects(telemetry, span, result.effects);
      });
    },
  };

  function sessionAttributes(sessionId: string, operation: string) {
    const id = String(sessionId);
    if (member) return { [ATTR.operationName]: operation, [ATTR.conversationId]: id, [ATTR.sessionId]: id, [ATTR.workflow]: workflow.name, [ATTR.workflowId]: member.workflowId };
    return { [ATTR.operationName]: operation, [ATTR.conversationId]: id, [ATTR.sessionId]: id, [ATTR.workflow]: workflow.name };
  }

  const monitor: Monitor = {
    workflow,
    ...(loops ? { loops } : {}),
    conversations,
    warmUp,
    ready: warmUp,
    misses: () => misses.counts(),
    on: (event, listener) => events.on(event, listener),
    recordShadowDisagreement: (sessionId, disagreement) => events.emit('shadow-disagreement', { sessionId, disagreement }),

    beforeModel: async (sessionId, request) => syncFirst.beforeModel(sessionId, request),
    afterModel: async (sessionId, turn, options) => syncFirst.afterModel(sessionId, turn, options),
    watchText: async (sessionId) => syncFirst.watchText(sessionId),
    beforeTool: async (sessionId, toolCall, options) => syncFirst.beforeTool(sessionId, toolCall, options),

    observeToolResults: async (sessionId, toolResults) =>
      serialised(sessionId, async () => {
        if (!loops || toolResults.length === 0) return null;
        if (sharesLoops) await load(sessionId); // the shared history, into the detector
        const report = await loops.observe(sessionId, { toolResults });
        if (report) events.emit('loop', { sessionId, report });
        return report;
      }),

    observeCondensation: async (sessionId) =>
      serialised(sessionId, async () => {
        if (!loops) return null;
        if (sharesLoops) await load(sessionId);
        const report = await loops.observe(sessionId, { condensed: true });
        if (report) events.emit('loop', { sessionId, report });
        return report;
      }),

    noteRefusals: async (sessionId, reasons) => noteForNextCall(sessionId, reasons),

    peek: async (sessionId) =>
      serialised(sessionId, async () => {
        const session = flushPending(activeOrFresh(await load(sessionId)), []);
        const { plan } = takeInterventions(workflow, session.workflow);
        if (plan.block) return { action: 'block' as const, intervention: plan.block };
        const loopHint = loops?.peekPendingHint(sessionId);
        if (loopHint?.action === 'stop') return { action: 'block' as const, intervention: { ...renderLoopHint(loopHint), strategy: 'hard-block' as const } };
        return { action: 'proceed' as const, interventions: loopHint ? [...plan.apply, renderLoopHint(loopHint)] : plan.apply };
      }),

    endSession: async (sessionId) => {
      const span = telemetry.startSpan(SPAN.endSession, sessionAttributes(sessionId, OPERATION.endSession));
      return traced(
        telemetry,
        span,
        () =>
          serialised(sessionId, async () => {
            const effects: WorkflowEffect[] = [];
            let session = flushPending((await load(sessionId)) ?? freshSession(), effects);
            session = apply(session, { type: 'close', at: clock.now() }, effects);
            loops?.resetSession(sessionId);
            await save(sessionId, session);
            emitEffects(sessionId, effects);
            recordEffects(telemetry, span, effects);
            return reportOf(sessionId, session);
          }),
        (report) => telemetry.setAttributes(span, { [ATTR.state]: report.state, [ATTR.status]: report.status, [ATTR.violationCount]: report.violations.length }),
      );
    },

    report: async (sessionId) => serialised(sessionId, async () => {
      const session = await load(sessionId);
      return session && reportOf(sessionId, session);
    }),

    session: async (sessionId) => serialised(sessionId, () => load(sessionId)),

    validNextStates: async (sessionId, input) =>
      serialised(sessionId, () => andThen(load(sessionId), (stored) => nextStatesOf(workflow, sessionId, flushPending(activeOrFresh(stored), []).workflow, input))),

    history: async (sessionId) => serialised(sessionId, () => andThen(load(sessionId), (stored) => stored && historyOf(sessionId, stored, historyLimit, workflow.definition.initialState))),

    resetSession: async (sessionId) =>
      serialised(sessionId, () => {
        loops?.resetSession(sessionId);
        return save(sessionId, freshSession());
      }),

    close: () =>
      lifecycle.close(async () => {
        await stateJudge?.settled(); // their notes are written before the store is flushed
        const settled = (store as { settled?: () => Promise<void> }).settled;
        if (typeof settled === 'function') {
          await Promise.resolve(within(settled.call(store), storeTimeoutMs, timers)).catch((error: unknown) => misses.record('store', 'The session store did not finish its writes on close.', error));
        }
        if (telemetryOptions.telemetry !== false) await flushTelemetry(timers, (error) => misses.record('telemetry', TELEMETRY_FAILED, error));
      }),
  };
  // After close(), every call on a session is refused (ClosedError), the sync-first ones adapters make too.
  const lifecycle = createLifecycle('monitor');
  lifecycle.guard(monitor, SESSION_CALLS);
  lifecycle.guard(syncFirst, ['beforeModel', 'afterModel', 'watchText', 'beforeTool']);
  registerSyncFirst(monitor, syncFirst);
  if (debug) attachDecisionLog(monitor, logger, clock, member?.workflowId);
  return monitor;

  /** What `beforeTool` will say about each announced tool call, assuming the earlier ones the workflow allows run. */
  function previewTools(session: MonitorSession): AfterModelResult['toolPreviews'] {
    const previews: AfterModelResult['toolPreviews'] = [];
    const waiting = session.pendingToolStates;
    runAhead(workflow, session.workflow, waiting, waiting.length, ({ toolName, toolCallId, state }, preview) => {
      previews.push({ toolName, ...(toolCallId === undefined ? {} : { toolCallId }), state, preview });
    });
    return previews;
  }
}

/**
 * A session record with every field written out: on a model call's path a spread (`{ ...session, turns }`) costs
 * microseconds each time (seen in profiles of an agent's run), a plain literal almost nothing.
 */
function sessionRecord(workflow: MonitorSession['workflow'], turns: number, steps: StepRecord[], stepCount: number, pendingToolStates: PendingToolState[], ranToolCalls: string[] | undefined): MonitorSession {
  return ranToolCalls === undefined ? { workflow, turns, steps, stepCount, pendingToolStates } : { workflow, turns, steps, stepCount, pendingToolStates, ranToolCalls };
}


/** `loop:<kind>` guidance for the next call, in the system prompt like a workflow intervention. */
function renderLoopHint(hint: LoopHint): RenderedIntervention {
  return { name: `loop:${hint.kind}`, strategy: 'system-prompt-append', text: hint.text };
}

/** The loop detector the `loops` option asks for, with the monitor's embedder, clock, logger and telemetry as defaults. */
export function resolveLoopDetector(option: MonitorOptions['loops'], defaults: LoopDetectorOptions): LoopDetector | undefined {
  if (!option) return undefined;
  if (typeof option === 'object' && 'observe' in option && typeof option.observe === 'function') return option;
  return createLoopDetector({ ...defaults, ...(option === true ? {} : (option as LoopDetectorOptions)) });
}

const ALLOWED: ToolGuardVerdict = { allowed: true };

/** A refusing verdict's user-facing text, as the deny result carries it (nothing when the guard gave none). */
function userMessageOf(verdict: ToolGuardVerdict): { userMessage?: string } {
  return !verdict.allowed && verdict.userMessage !== undefined ? { userMessage: verdict.userMessage } : {};
}

/** The monitor's calls that read or write a session: refused once it is closed. */
const SESSION_CALLS = ['beforeModel', 'afterModel', 'watchText', 'beforeTool', 'observeToolResults', 'observeCondensation', 'peek', 'endSession', 'report', 'session', 'validNextStates', 'history', 'resetSession', 'noteRefusals'] as const;

const TELEMETRY_FAILED = 'The OpenTelemetry SDK (a span processor, an exporter or a meter) threw; the span or metric was dropped.';

/**
 * Runs one monitor call with `span` active (spans started inside nest under it), then hands the result to `record`
 * and ends the span. The call's own result or error passes through untouched; `record` failing changes nothing.
 */
function traced<T>(telemetry: Telemetry, span: Span | undefined, run: () => MaybePromise<T>, record: (result: T) => void): MaybePromise<T> {
  const done = (result: T): T => {
    try {
      record(result);
    } catch {
      // Telemetry never fails a call.
    }
    telemetry.end(span);
    return result;
  };
  let result: MaybePromise<T>;
  try {
    result = telemetry.withSpan(span, run);
  } catch (error) {
    telemetry.end(span, error);
    throw error;
  }
  if (!isPromiseLike(result)) return done(result);
  return Promise.resolve(result).then(done, (error: unknown) => {
    telemetry.end(span, error);
    throw error;
  });
}

/** A tool call's name and id; its arguments only with `captureContent`. */
function toolCallAttributes(telemetry: Telemetry, toolCall: ToolCall) {
  const args = telemetry.captureContent ? telemetry.content(toolCall?.args) : undefined;
  return {
    [ATTR.toolName]: String(toolCall?.name),
    ...(typeof toolCall?.id === 'string' ? { [ATTR.toolCallId]: toolCall.id } : {}),
    ...(args === undefined ? {} : { [ATTR.toolCallArguments]: args }),
  };
}

/**
 * Guards fail closed: a guard that throws refuses the call, since letting an unchecked write through is worse. The
 * host's control flow (an interrupt raised by a data tool) is not a failure: it passes through, and nothing is
 * recorded for the call, which is checked again when the run resumes.
 */
function runGuard(guard: ToolGuard, toolCall: ToolCall, timeoutMs: number, timers: Timers): MaybePromise<ToolGuardVerdict> {
  const refused = (error: unknown): ToolGuardVerdict => {
    if (isHostControlFlow(error)) throw error;
    const why = error instanceof TimedOut ? `its policy check did not finish within ${timeoutMs} ms` : 'its policy check failed';
    return { allowed: false, reason: `The call to ${toolCall.name} was refused: ${why}, so it did not run.` };
  };
  try {
    const verdict = within(guard(toolCall), timeoutMs, timers);
    return isPromiseLike(verdict) ? Promise.resolve(verdict).catch(refused) : verdict;
  } catch (error) {
    return refused(error);
  }
}

/** Stands in for the shape check of sessions from the monitor's own store, which only ever holds what it saved. */
const isAnything = (_value: unknown): _value is MonitorSession => true;

function assertMilliseconds(parameter: string, value: number, defaults: string): void {
  if (!(typeof value === 'number' && value > 0 && Number.isFinite(value))) throw new InvalidOptionError({ parameter, value, fix: `Pass a positive number of milliseconds; ${defaults}.` });
}

/** The last `limit` of `kept` followed by `added`, copied once (a session keeps its last `historyLimit` steps). */
function lastOf<T>(kept: readonly T[], added: readonly T[], limit: number): T[] {
  const total = kept.length + added.length;
  const start = Math.max(0, total - limit);
  const result = new Array<T>(total - start);
  for (let i = start; i < total; i++) result[i - start] = i < kept.length ? kept[i]! : added[i - kept.length]!;
  return result;
}

/** `beforeModel`'s answer when nothing is due: proceed with the request's own messages, read only if asked for. */
function unchanged(request: ModelRequest): BeforeModelResult {
  return new Unchanged(request);
}

// `messages` is an own, enumerable accessor (one shared descriptor, about 0.1 us to define), so a result that is
// spread or logged with JSON.stringify keeps it, while the messages are still read only if asked for.
class Unchanged {
  readonly action = 'proceed';
  readonly interventions: RenderedIntervention[] = [];
  declare readonly messages: ChatMessage[];
  readonly #request: ModelRequest;
  static readonly #messages: PropertyDescriptor = {
    get(this: Unchanged) {
      return this.#request.messages;
    },
    enumerable: true,
  };

  constructor(request: ModelRequest) {
    this.#request = request;
    Object.defineProperty(this, 'messages', Unchanged.#messages);
  }
}

/** Nothing is due on the next call: no tool-call state waiting to enter, no intervention pending, and still active. */
function isIdle(session: MonitorSession): boolean {
  return session.pendingToolStates.length === 0 && session.workflow.interventions.pending.length === 0 && session.workflow.status === 'active';
}

/** Hosts send odd shapes (null content, missing tool calls); the core reads them as empty rather than crashing. */
function normaliseTurn(turn: AssistantTurn): AssistantTurn {
  const content = typeof turn.content === 'string' ? turn.content : '';
  const extra = {
    ...(typeof turn.reasoning === 'string' && turn.reasoning !== '' ? { reasoning: turn.reasoning } : {}),
    ...(Array.isArray(turn.availableTools) ? { availableTools: turn.availableTools } : {}),
  };
  if (!Array.isArray(turn.toolCalls)) return { content, toolCalls: [], ...extra };
  const toolCalls = turn.toolCalls.length === 0 ? (turn.toolCalls as ToolCall[]) : turn.toolCalls.filter((call): call is ToolCall => typeof call?.name === 'string');
  return { content, toolCalls, ...extra };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
