import { createClassifier, type ClassificationResult } from '../classify/index.js';
import { systemClock } from '../clock/index.js';
import { InvalidOptionError, WorkflowViolationError } from '../errors/index.js';
import { applyInterventions, type RenderedIntervention } from '../intervene/index.js';
import { createLoopDetector, LoopDetectedError, toolResultsAfterLastTurn, type LoopDetector, type LoopDetectorOptions, type LoopHint } from '../loops/index.js';
import type { ChatMessage, ToolCall } from '../messages/index.js';
import { createMemorySessionStore } from '../store/index.js';
import {
  createSnapshot,
  DEFAULT_HISTORY_LIMIT,
  previewEnter,
  takeInterventions,
  transition,
  verdictsOf,
  type WorkflowEffect,
  type WorkflowEvent,
} from '../workflow/index.js';
import { createEmitter } from './events.js';
import { createMissCounter } from './fail-open.js';
import { createKeyedQueue } from './keyed-queue.js';
import { refusalText } from './refusal-text.js';
import type {
  AfterModelResult,
  BeforeModelResult,
  BeforeToolResult,
  Monitor,
  MonitorOptions,
  MonitorSession,
  PendingToolState,
  SessionReport,
  StepRecord,
  ToolGuard,
  ToolGuardVerdict,
} from './types.js';

/**
 * Creates a workflow monitor: give it each model request and response of a session, and it knows which state the
 * agent is in, which constraints hold, and what to inject into or refuse on the next call (DESIGN.md section 7).
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
  embeddings,
  embeddingTimeoutMs,
  clock = systemClock,
  store = createMemorySessionStore<MonitorSession>({ clock }),
  historyLimit = DEFAULT_HISTORY_LIMIT,
  logger = console,
  loops: loopsOption = false,
}: MonitorOptions): Monitor {
  if (!(historyLimit === Infinity || (Number.isInteger(historyLimit) && historyLimit > 0))) {
    throw new InvalidOptionError({ parameter: 'historyLimit', value: historyLimit, fix: 'Pass a positive whole number, or Infinity to keep everything; the default is 100.' });
  }
  const misses = createMissCounter(logger);
  const events = createEmitter((error) => misses.record('listener', 'A monitor event listener threw.', error));
  const classifier = createClassifier({ workflow, ...(embeddings ? { embeddings } : {}), ...(embeddingTimeoutMs ? { embeddingTimeoutMs } : {}) });
  const serialised = createKeyedQueue();
  const loops = resolveLoopDetector(loopsOption, { ...(embeddings ? { embedder: embeddings } : {}), clock, logger, missCounter: misses });
  const warmUp = async () => {
    await Promise.all([classifier.warmUp(), loops?.warmUp()]);
  };
  // Warm up at once so the first real call is not a cold start; a failure here is reported, not thrown.
  if (embeddings) warmUp().catch((error: unknown) => misses.record('embedding', 'Embedding the workflow exemplars failed.', error));

  const freshSession = (): MonitorSession => ({
    workflow: createSnapshot(workflow, { at: clock.now(), historyLimit }),
    turns: 0,
    steps: [],
    stepCount: 0,
    pendingToolStates: [],
  });

  async function load(sessionId: string): Promise<MonitorSession | undefined> {
    try {
      return await store.get(sessionId);
    } catch (error) {
      misses.record('store', 'The session store failed to read a session; the session restarts from the initial state.', error);
      return undefined;
    }
  }

  /** The session to continue: a new one when there is none or the stored one has ended. */
  async function loadActive(sessionId: string): Promise<MonitorSession> {
    const stored = await load(sessionId);
    return stored && stored.workflow.status === 'active' ? stored : freshSession();
  }

  async function save(sessionId: string, session: MonitorSession): Promise<void> {
    try {
      await store.set(sessionId, session);
    } catch (error) {
      misses.record('store', 'The session store failed to save a session.', error);
    }
  }

  /** Applies one workflow event to the session, collecting its effects. */
  function apply(session: MonitorSession, event: WorkflowEvent, effects: WorkflowEffect[]): MonitorSession {
    const result = transition(workflow, session.workflow, event);
    effects.push(...result.effects);
    return result.snapshot === session.workflow ? session : { ...session, workflow: result.snapshot };
  }

  /** Tool-call states whose call was never checked by `beforeTool` did run: they enter now, in call order. */
  function flushPending(session: MonitorSession, effects: WorkflowEffect[]): MonitorSession {
    if (session.pendingToolStates.length === 0) return session;
    let next: MonitorSession = { ...session, pendingToolStates: [] };
    for (const pending of session.pendingToolStates) next = apply(next, enterEvent(pending.state, pending.confidence, 'tool_call', pending.step), effects);
    return next;
  }

  const enterEvent = (state: string, confidence: number, method: StepRecord['method'], step: number, metadata?: Record<string, unknown>): WorkflowEvent => ({
    type: 'enter',
    state,
    at: clock.now(),
    confidence,
    method,
    step,
    ...(metadata ? { metadata } : {}),
  });

  function recordSteps(session: MonitorSession, results: ClassificationResult[], turn: number): { session: MonitorSession; steps: StepRecord[] } {
    const steps = results.map((result, offset) => ({
      index: session.stepCount + offset + 1,
      turn,
      state: result.state,
      method: result.method,
      confidence: result.confidence,
    }));
    const kept = [...session.steps, ...steps];
    return { session: { ...session, steps: kept.length > historyLimit ? kept.slice(kept.length - historyLimit) : kept, stepCount: session.stepCount + steps.length }, steps };
  }

  function countEmbeddingMisses(results: ClassificationResult[]): void {
    for (const { evidence } of results) {
      if (evidence.kind === 'fallback' && evidence.reason === 'embedding-failed') {
        misses.record('embedding', 'The embedder failed or ran out of time; the response was classified without embeddings.', evidence.error);
      }
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

  /** Completes the last turn's calls with the results now in the request, then takes the loop hint due on this call. */
  async function takeLoopHint(sessionId: string, messages: ChatMessage[]): Promise<LoopHint | undefined> {
    if (!loops) return undefined;
    const report = await loops.observe(sessionId, { toolResults: toolResultsAfterLastTurn(messages) });
    if (report) events.emit('loop', { sessionId, report });
    return loops.takePendingHint(sessionId);
  }

  return {
    workflow,
    ...(loops ? { loops } : {}),
    warmUp,
    misses: () => misses.counts(),
    on: (event, listener) => events.on(event, listener),

    beforeModel: (sessionId, request) =>
      serialised(sessionId, async (): Promise<BeforeModelResult> => {
        const effects: WorkflowEffect[] = [];
        let session = flushPending(await loadActive(sessionId), effects);
        const taken = takeInterventions(workflow, session.workflow);
        session = taken.snapshot === session.workflow ? session : { ...session, workflow: taken.snapshot };
        await save(sessionId, session);
        events.emitEffects(sessionId, effects);
        const { plan } = taken;
        const loopHint = await takeLoopHint(sessionId, request.messages);
        const apply = loopHint && loopHint.action !== 'stop' ? [...plan.apply, renderLoopHint(loopHint)] : plan.apply;
        const block = plan.block ?? (loopHint?.action === 'stop' ? { ...renderLoopHint(loopHint), strategy: 'hard-block' as const } : undefined);
        for (const intervention of [...apply, ...(block ? [block] : [])]) events.emit('intervention', { sessionId, intervention });
        if (block) {
          const error = plan.block
            ? new WorkflowViolationError({ intervention: block.name, modelMessage: block.text, sessionId })
            : new LoopDetectedError({ hint: loopHint!, sessionId });
          return { action: 'block', intervention: block, error };
        }
        const messages = apply.length === 0 ? request.messages : applyInterventions(request.messages, apply);
        return { action: 'proceed', messages, interventions: apply };
      }),

    afterModel: (sessionId, turn, options = {}) =>
      serialised(sessionId, async (): Promise<AfterModelResult> => {
        const effects: WorkflowEffect[] = [];
        let session = flushPending(await loadActive(sessionId), effects);
        const turnNumber = session.turns + 1;
        const normalised = normaliseTurn(turn);
        const classifications = await classifier.classify(normalised, session.workflow.state);
        countEmbeddingMisses(classifications);
        const recorded = recordSteps({ ...session, turns: turnNumber }, classifications, turnNumber);
        session = recorded.session;
        const pending: PendingToolState[] = [];
        classifications.forEach((result, offset) => {
          const step = recorded.steps[offset]!.index;
          if (result.evidence.kind === 'tool_call') {
            const { toolName, toolCallId } = result.evidence;
            pending.push({ state: result.state, toolName, ...(toolCallId === undefined ? {} : { toolCallId }), step, confidence: result.confidence });
          } else {
            session = apply(session, enterEvent(result.state, result.confidence, result.method, step, options.metadata), effects);
          }
        });
        session = { ...session, pendingToolStates: pending };
        await save(sessionId, session);
        events.emitEffects(sessionId, effects);
        const loop = loops ? await loops.observe(sessionId, { text: normalised.content, toolCalls: normalised.toolCalls }) : null;
        if (loop) events.emit('loop', { sessionId, report: loop });
        return { classifications, toolPreviews: previewTools(session), effects, loop };
      }),

    beforeTool: (sessionId, toolCall, { guard } = {}) =>
      serialised(sessionId, async (): Promise<BeforeToolResult> => {
        let session = await loadActive(sessionId);
        let pending = takePending(session.pendingToolStates, toolCall);
        if (pending) {
          session = { ...session, pendingToolStates: session.pendingToolStates.filter((entry) => entry !== pending) };
        } else {
          // A call the model response did not announce (or one already flushed): classify it by its name alone.
          const [result] = await classifier.classify({ content: '', toolCalls: [toolCall] }, session.workflow.state);
          if (result?.evidence.kind === 'tool_call') {
            const recorded = recordSteps(session, [result], session.turns);
            session = recorded.session;
            pending = { state: result.state, toolName: toolCall.name, step: recorded.steps[0]!.index, confidence: 1 };
          }
        }
        const effects: WorkflowEffect[] = [];
        const finish = async (result: BeforeToolResult) => {
          await save(sessionId, session);
          events.emitEffects(sessionId, effects);
          return result;
        };

        const preview = pending && previewEnter(workflow, session.workflow, pending.state, { confidence: pending.confidence, method: 'tool_call' });
        if (pending && preview?.refuse) {
          const constraints = preview.violations.filter((violation) => violation.severity === 'critical').map((violation) => violation.constraint);
          const reason = refusalText(workflow, session.workflow.state, pending, preview);
          session = apply(session, { type: 'refuse', state: pending.state, at: clock.now(), reason, constraints, step: pending.step }, effects);
          return finish({ action: 'deny', by: 'workflow', state: pending.state, reason, constraints, effects });
        }
        const verdict = guard ? await runGuard(guard, toolCall) : ({ allowed: true } as const);
        if (!verdict.allowed) {
          if (pending) {
            session = apply(session, { type: 'refuse', state: pending.state, at: clock.now(), reason: verdict.reason, constraints: [], by: 'guard', step: pending.step }, effects);
          }
          return finish({ action: 'deny', by: 'guard', ...(pending ? { state: pending.state } : {}), reason: verdict.reason, constraints: [], effects });
        }
        if (!pending) return finish({ action: 'allow', effects });
        session = apply(session, enterEvent(pending.state, pending.confidence, 'tool_call', pending.step), effects);
        return finish({ action: 'allow', state: pending.state, effects });
      }),

    observeToolResults: (sessionId, toolResults) =>
      serialised(sessionId, async () => {
        if (!loops || toolResults.length === 0) return null;
        const report = await loops.observe(sessionId, { toolResults });
        if (report) events.emit('loop', { sessionId, report });
        return report;
      }),

    peek: (sessionId) =>
      serialised(sessionId, async () => {
        const session = flushPending(await loadActive(sessionId), []);
        const { plan } = takeInterventions(workflow, session.workflow);
        if (plan.block) return { action: 'block' as const, intervention: plan.block };
        const loopHint = loops?.peekPendingHint(sessionId);
        if (loopHint?.action === 'stop') return { action: 'block' as const, intervention: { ...renderLoopHint(loopHint), strategy: 'hard-block' as const } };
        return { action: 'proceed' as const, interventions: loopHint ? [...plan.apply, renderLoopHint(loopHint)] : plan.apply };
      }),

    endSession: (sessionId) =>
      serialised(sessionId, async () => {
        const effects: WorkflowEffect[] = [];
        let session = flushPending((await load(sessionId)) ?? freshSession(), effects);
        session = apply(session, { type: 'close', at: clock.now() }, effects);
        loops?.resetSession(sessionId);
        await save(sessionId, session);
        events.emitEffects(sessionId, effects);
        return reportOf(sessionId, session);
      }),

    report: (sessionId) => serialised(sessionId, async () => {
      const session = await load(sessionId);
      return session && reportOf(sessionId, session);
    }),

    session: (sessionId) => serialised(sessionId, () => load(sessionId)),
  };

  /** What `beforeTool` will say about each announced tool call, assuming the earlier ones are allowed. */
  function previewTools(session: MonitorSession): AfterModelResult['toolPreviews'] {
    let snapshot = session.workflow;
    return session.pendingToolStates.map((pending) => {
      const preview = previewEnter(workflow, snapshot, pending.state, { confidence: pending.confidence, method: 'tool_call' });
      if (!preview.refuse) snapshot = transition(workflow, snapshot, { type: 'enter', state: pending.state, at: snapshot.updatedAt }).snapshot;
      const { toolName, toolCallId, state } = pending;
      return { toolName, ...(toolCallId === undefined ? {} : { toolCallId }), state, preview };
    });
  }
}

/** `loop:<kind>` guidance for the next call, in the system prompt like a workflow intervention. */
function renderLoopHint(hint: LoopHint): RenderedIntervention {
  return { name: `loop:${hint.kind}`, strategy: 'system-prompt-append', text: hint.text };
}

function resolveLoopDetector(option: MonitorOptions['loops'], defaults: LoopDetectorOptions): LoopDetector | undefined {
  if (!option) return undefined;
  if (typeof option === 'object' && 'observe' in option && typeof option.observe === 'function') return option;
  return createLoopDetector({ ...defaults, ...(option === true ? {} : (option as LoopDetectorOptions)) });
}

/** Guards fail closed: a guard that throws refuses the call, since letting an unchecked write through is worse. */
async function runGuard(guard: ToolGuard, toolCall: ToolCall): Promise<ToolGuardVerdict> {
  try {
    return await guard(toolCall);
  } catch {
    return { allowed: false, reason: `The call to ${toolCall.name} was refused: its policy check failed, so it did not run.` };
  }
}

/** The announced call this tool call is: by id when both have one, else the first with the same tool name. */
function takePending(pending: readonly PendingToolState[], call: ToolCall): PendingToolState | undefined {
  return (call.id === undefined ? undefined : pending.find((entry) => entry.toolCallId === call.id)) ?? pending.find((entry) => entry.toolName === call.name);
}

/** Hosts send odd shapes (null content, missing tool calls); the core reads them as empty rather than crashing. */
function normaliseTurn(turn: { content?: unknown; toolCalls?: unknown }): { content: string; toolCalls: ToolCall[] } {
  const content = typeof turn.content === 'string' ? turn.content : '';
  const toolCalls = Array.isArray(turn.toolCalls) ? turn.toolCalls.filter((call): call is ToolCall => typeof call?.name === 'string') : [];
  return { content, toolCalls };
}
