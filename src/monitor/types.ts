import type { TelemetryOptions } from '../telemetry/index.js';
import type { ClassificationResult, ClassificationTier } from '../classify/index.js';
import type { Registry } from '../registry/index.js';
import type { Clock, Timers } from '../clock/index.js';
import type { ConversationSessions } from '../session/index.js';
import type { Embedder } from '../embed/index.js';
import type { PanoptesError } from '../errors/index.js';
import type { LoopDetector, LoopDetectorOptions, LoopReport, LoopToolResult } from '../loops/index.js';
import type { RenderedIntervention } from '../intervene/index.js';
import type { ChatMessage, ToolCall } from '../messages/index.js';
import type { SessionStore } from '../store/index.js';
import type { Verdict } from '../temporal/index.js';
import type { EnterPreview, WithholdDecision, Workflow, WorkflowEffect, WorkflowSnapshot } from '../workflow/index.js';
import type { Judge, JudgmentReport } from '../judge/index.js';
import type { Logger, MissCause } from './fail-open.js';
import type { SessionHistory } from './history.js';
import type { NextStateInput, NextStates } from './next-states.js';

/** One classified state of a session, numbered in order: what the audit report lists as steps. */
export interface StepRecord {
  /** 1-based, unique within the session. */
  index: number;
  /** The model turn (1-based `afterModel` call) it came from. */
  turn: number;
  state: string;
  method: ClassificationResult['method'];
  confidence: number;
  /**
   * When it was classified, in milliseconds after the session started (`workflow.startedAt`): an offset keeps the
   * stored session small. Absent in sessions stored before it existed. `monitor.history` gives absolute times.
   */
  elapsedMs?: number;
  /** The response was withheld before delivery: its state did not enter the trace. */
  withheld?: true;
  /** The response was the model's second try, asked for after the first was withheld (`onViolatingText: 'regenerate'`). */
  regenerated?: true;
}

/**
 * A state from a tool call, waiting for the call to run (`beforeTool`) or for the next model call. The calls of a
 * response wait in call order, and their states enter in that order whatever order they are checked in.
 */
export interface PendingToolState {
  state: string;
  toolName: string;
  toolCallId?: string;
  step: number;
  confidence: number;
  /**
   * The trace length when the response that made the call was generated: the states entered after it (by the
   * response's other calls) were not seen by the model, so they do not let this call through (`previewEnter`'s
   * `seenLength`). Absent in sessions stored before it existed: then every state counts.
   */
  seen?: number;
  /** Checked and allowed; its state enters once every earlier call of its response is checked (or at the next model call). */
  allowed?: true;
  /** The call's arguments that `grounded` constraints read, for a call into one of their triggers; absent otherwise. */
  args?: Record<string, unknown>;
}

/** Everything the monitor keeps about one session. Plain JSON. */
export interface MonitorSession {
  workflow: WorkflowSnapshot;
  /** Model turns seen. */
  turns: number;
  /** The last `historyLimit` classified steps. */
  steps: StepRecord[];
  /** Steps classified so far, including any dropped from `steps`. */
  stepCount: number;
  pendingToolStates: PendingToolState[];
  /**
   * Ids of the tool calls whose state entered at the last model call, unchecked (no `beforeTool` came first): a check
   * of one of them that comes late records nothing again. Absent when there are none.
   */
  ranToolCalls?: string[];
  /**
   * The loop detector's history of the session (plain JSON), kept here only when the store is shared between
   * processes (it has `exclusive`, as the Redis store does) and loop detection is on.
   */
  loops?: unknown;
}

/**
 * Watches a streamed response's text for a state that would be withheld, with the patterns of those states on a
 * sliding window (the last 512 characters and each delta), so a host can stop the text before it reaches the user.
 * Built from the session as it is when the response starts.
 */
export interface TextWatch {
  /** The states a response would be withheld for now (some may be recognised only by exemplars, after the end). */
  readonly states: readonly string[];
  /** Feeds the next piece of text; the state it completes a pattern of, or null. Reads the first 8,000 characters, as the classifier does. */
  text(delta: string): { state: string; pattern: string } | null;
  /** Counts a `hold` miss: the host stopped holding text past its bound and streamed the rest unchecked until the end. */
  overflowed(bound: 'bytes' | 'time'): void;
}

/** Telemetry: `tracer`, `meter`, `captureContent` and `redactPatterns` (docs/telemetry.md). */
export interface MonitorOptions extends TelemetryOptions {
  workflow: Workflow;
  /**
   * Where registered intervention strategies and classification tiers are looked up (constraint types were looked
   * up when the workflow loaded). @default the registry the workflow was loaded with, else `defaultRegistry`
   */
  registry?: Registry;
  /**
   * Classification tiers of your own (`defineClassificationTier`), asked after the registry's tiers, after the tool
   * calls and patterns and before the exemplars. Each call is bounded by its `timeoutMs`; a failure is counted
   * (`misses().tier`), logged once, and the turn goes on down the cascade.
   */
  tiers?: readonly ClassificationTier[];
  /** Enables the exemplar tier of classification. Any LangChain embeddings object works. */
  embeddings?: Embedder;
  /** Budget of one embedding on the model-call path, in milliseconds. @default 50 */
  embeddingTimeoutMs?: number;
  /**
   * Where sessions live. A value read back that is not a session of this workflow is discarded (counted as a `store`
   * miss) and the session starts afresh.
   * @default an in-memory store with a 1 hour TTL and at most 10,000 sessions
   */
  store?: SessionStore<MonitorSession>;
  /**
   * Budget of one store read or write, in milliseconds. A read past it starts the session afresh, a write past it
   * is abandoned; both are counted `store` misses, so a store that never answers cannot hold a session's calls.
   * @default 1000
   */
  storeTimeoutMs?: number;
  /**
   * Budget of a tool guard (`beforeTool`'s `guard`, such as a sentinel's proof with its data tools), in
   * milliseconds. Past it the call is refused: guards fail closed.
   * @default 30000
   */
  guardTimeoutMs?: number;
  /**
   * Budget of embedding the workflow's exemplars once, in milliseconds (loading a local model included). Past it the
   * warm-up is a counted, logged `embedding` miss and the next call tries again.
   * @default 30000
   */
  warmUpTimeoutMs?: number;
  /** Timer functions for the budgets above, replaceable in tests. @default systemTimers */
  timers?: Timers;
  /** @default systemClock */
  clock?: Clock;
  /** Trace states, steps, deviations and refusals kept per session. @default 100 */
  historyLimit?: number;
  /** Receives Panoptes' own failures, once per cause. @default console */
  logger?: Logger;
  /**
   * Loop detection on every turn: `true` for the defaults, options to tune it (the monitor's
   * embedder, clock and logger are used unless given), or a detector of your own. Hints go into the next call
   * like interventions; a loop that reaches `stop` blocks the next call with `LoopDetectedError`.
   * @default false
   */
  loops?: boolean | LoopDetectorOptions | LoopDetector;
  /**
   * Logs each decision (a state entered, a deviation, a violation, a refusal, an intervention, a loop) as one JSON
   * line through `logger.debug` (`logger.warn` without it): session, phase, state, constraint, verdict, reason, time.
   * Off, nothing is subscribed and nothing is paid.
   * @default true when the environment sets PANOPTES_DEBUG=1 (the CLI's --debug), else false
   */
  debug?: boolean;
  /**
   * An LLM judge (`createJudge`) for rubrics on states: each `turn` rubric whose `applies_to.states` names the state a
   * text response is classified in judges that response, in the background (`afterModel` does not wait for it). A
   * rubric that does not pass with `deny` or `ask` (its `on_fail` block, intervene or ask, or its `on_error`) puts a
   * note into the session's next call, as `noteRefusals` does; every outcome that did not simply pass is a
   * `judgment` event. Turn rubrics without `states` are left to the hosts, which judge before delivery. A monitor
   * whose sessions live in graph state (`createGraphMonitor`) gets the event only: the note lands after the step
   * wrote the session.
   */
  judge?: Judge;
}

/**
 * The model call `beforeModel` looks at. `messages` is read only when something is due on the call (interventions
 * to apply, a loop hint to work out), so a host whose messages need converting can pass a getter: most calls then
 * never convert them.
 * @example
 * await monitor.beforeModel(sessionId, lazyModelRequest(() => toChatMessages(hostMessages)));
 */
export interface ModelRequest {
  messages: ChatMessage[];
}

/** What the next model call must do. */
export type BeforeModelResult =
  | {
      action: 'proceed';
      /**
       * The request's messages with pending interventions applied; the request's own array when there were none
       * (then `interventions` is empty and the request can go on as it was, and `messages` is a getter that reads the
       * request only when called: read it before spreading or serialising the result).
       */
      messages: ChatMessage[];
      /** The interventions applied to this call. */
      interventions: RenderedIntervention[];
    }
  | {
      action: 'block';
      /** What blocks: a hard-block intervention, or `loop:<kind>` for a loop that reached `stop`. */
      intervention: RenderedIntervention;
      /** Ready to throw, for hosts that refuse a call by throwing: `WorkflowViolationError` or `LoopDetectedError`. */
      error: PanoptesError;
    };

/** What `afterModel` may be told about the response besides its content. */
export interface AfterModelOptions {
  /** Read by transition guards (`required_metadata`, `expression`). */
  metadata?: Record<string, unknown>;
  /**
   * The host can keep this response from the user. A response that would break a constraint that withholds (a
   * critical one, or one whose intervention is a `block:`) is then withheld: its state does not enter the trace, its
   * violations are recorded marked `withheld`, their guidance goes into the next call (never a block by itself), and
   * the result's `withheld` says what to deliver instead. Without it the response is taken as delivered, as a host
   * that cannot change it (a callback handler) must: a critical violation then blocks the next call.
   * @default false
   */
  withhold?: boolean;
  /** This response is the model's second try after a withheld one (`onViolatingText: 'regenerate'`): counted. */
  regenerated?: boolean;
  /**
   * The conversation before the response, for the monitor's `judge` (the user's last message is part of what a turn
   * rubric judges); read only when a rubric applies to the response's state.
   */
  messages?: () => readonly ChatMessage[];
}

/** A response the monitor withheld: the host must deliver `userMessage` in its place. */
export type WithheldResponse = WithholdDecision;

/**
 * What a host does with a response the monitor withholds: deliver the workflow's user message in its place
 * (`replace`), first ask the model once more with the guidance and deliver that answer if it complies
 * (`regenerate`), or deliver it unchanged as if nothing could be withheld (`deliver`).
 */
export type OnViolatingText = 'replace' | 'regenerate' | 'deliver';

export interface AfterModelResult {
  /** One per recognised tool call, or the single text classification. */
  classifications: ClassificationResult[];
  /**
   * Present when the host asked to withhold (`withhold: true`) and this response must not reach the user: why, and
   * the text to deliver instead. A text response is withheld when the state it is classified as, or another state
   * its text matched a pattern of, would break a constraint that withholds.
   */
  withheld?: WithheldResponse;
  /** For each state from a tool call: what entering it would do (the check `beforeTool` will make). */
  toolPreviews: Array<{ toolName: string; toolCallId?: string; state: string; preview: EnterPreview }>;
  effects: WorkflowEffect[];
  /** A loop this turn completed, when loop detection is on; its hint is applied on the next call. */
  loop: LoopReport | null;
}

/**
 * What a tool guard (a sentinel, or any check of the caller's) says about a call the workflow would allow. A refusal
 * may carry `userMessage`, what the user should read in its place (a question the refusal waits on), for hosts that
 * show the user something instead of the call; `reason` is for the model.
 */
export type ToolGuardVerdict = { allowed: true } | { allowed: false; reason: string; userMessage?: string };

/** A check run inside `beforeTool` after the workflow allows the call and before its state is entered. */
export type ToolGuard = (toolCall: ToolCall) => ToolGuardVerdict | Promise<ToolGuardVerdict>;

export type BeforeToolResult =
  | {
      action: 'allow';
      /**
       * The call's state, absent for a tool the workflow does not classify. It enters now, or, for a call checked
       * before an earlier call of its response, once that one is checked (or at the next model call): states enter
       * in call order. `effects` are those of the states that entered on this check.
       */
      state?: string;
      effects: WorkflowEffect[];
    }
  | {
      action: 'deny';
      /** `workflow`: a constraint or the deviation policy refused it; `guard`: the guard passed to `beforeTool` did. */
      by: 'workflow' | 'guard';
      /** The state the call would have entered; absent for a tool the workflow does not classify. */
      state?: string;
      /** Short text for the model: why the call was refused and what to do instead. */
      reason: string;
      /** What the user should read in the call's place, when the guard that refused it said (its verdict's `userMessage`). */
      userMessage?: string;
      /** The constraints the call would have violated. */
      constraints: string[];
      effects: WorkflowEffect[];
    };

/** A session's outcome, from `endSession` (final) or `report` (so far). */
export interface SessionReport {
  sessionId: string;
  /** The name of the session's workflow. */
  workflow: string;
  /** With several workflows (`createMonitor({ workflows })`): the id the session's workflow was chosen by. */
  workflowId?: string;
  status: WorkflowSnapshot['status'];
  state: string;
  trace: string[];
  steps: StepRecord[];
  violations: WorkflowSnapshot['violations'];
  deviations: WorkflowSnapshot['deviations'];
  refusals: WorkflowSnapshot['refusals'];
  verdicts: Record<string, Verdict>;
  doomed: string[];
}

/** Events a monitor emits, after the session is saved. Listener errors are counted and logged, never thrown. */
export interface MonitorEvents {
  'state-change': { sessionId: string; from: string; to: string; at: number };
  violation: { sessionId: string; violation: WorkflowSnapshot['violations'][number] };
  deviation: { sessionId: string; deviation: WorkflowSnapshot['deviations'][number] };
  refusal: { sessionId: string; refusal: WorkflowSnapshot['refusals'][number] };
  doomed: { sessionId: string; constraint: string; message: string };
  intervention: { sessionId: string; intervention: RenderedIntervention };
  loop: { sessionId: string; report: LoopReport };
  /** A shadow verifier's candidate judged a criterion differently from the primary (`shadowVerifier` in `panoptes/langgraph`). */
  'shadow-disagreement': { sessionId: string; disagreement: ShadowDisagreementSummary };
  /** The monitor's `judge` judged a response on its state and it did not simply pass (a fail, a warning, an error). */
  judgment: JudgmentReport & { sessionId: string; state: string };
}

/** How a candidate verifier's verdict on one criterion differs from the primary's, as a monitor event carries it. */
export interface ShadowDisagreementSummary {
  criterionId: string;
  /** What differs: the status, the confidence (by the shadow's tolerance or more), the verified citations. */
  differences: Array<'status' | 'confidence' | 'citations'>;
  primaryStatus: string;
  candidateStatus: string;
  /** The candidate's confidence minus the primary's. */
  confidenceDelta: number;
  /** Citations (as JSON of source and normalised quote) only one of the two gave. */
  citations: { onlyPrimary: string[]; onlyCandidate: string[] };
}

export interface Monitor {
  readonly workflow: Workflow;
  /** Applies the interventions due on this call, or says to block it. */
  beforeModel(sessionId: string, request: ModelRequest): Promise<BeforeModelResult>;
  /**
   * Classifies a response, checks the constraints and moves the workflow. Tool-call states wait for `beforeTool`.
   * With `withhold`, a response that must not reach the user is withheld instead (see {@link AfterModelOptions}).
   */
  afterModel(sessionId: string, turn: { content: string; toolCalls: ToolCall[] }, options?: AfterModelOptions): Promise<AfterModelResult>;
  /**
   * A watch over the text of the session's next response as it streams, for a host that wants to cut or hold it:
   * `undefined` when no response could be withheld now (then nothing needs watching or holding).
   */
  watchText(sessionId: string): Promise<TextWatch | undefined>;
  /**
   * The pre-emptive check: allows a tool call (and enters its state, in call order among its response's calls) or
   * refuses it before it runs. A call is not let through by a state another call of the same response entered (see
   * docs/workflows.md, pre-emptive checks). A `guard` (the rules of a sentinel, say) is consulted only when the
   * workflow allows the call, and before its state is entered, so a call the guard refuses never enters the trace. A
   * guard that throws refuses (guards fail closed).
   */
  beforeTool(sessionId: string, toolCall: ToolCall, options?: { guard?: ToolGuard }): Promise<BeforeToolResult>;
  /**
   * Tells the model, on the session's next call, why tool calls were refused: for a host whose model never reads a
   * tool result for them (a proxy takes a refused call out of the answer, so nothing answers it). Each reason (written
   * for the model, like `beforeTool`'s) goes into the system prompt once: one the pending guidance already shows (a
   * workflow refusal's) is not repeated, a repeated one is kept once, and at most 8 wait. Hosts that return the reason
   * as the tool's result (the adapters) never need this.
   */
  noteRefusals(sessionId: string, reasons: readonly string[]): Promise<void>;
  /** What the next `beforeModel` would do (apply these interventions, or block), without using anything up. */
  peek(sessionId: string): Promise<{ action: 'proceed'; interventions: RenderedIntervention[] } | { action: 'block'; intervention: RenderedIntervention }>;
  /** Closes the session's trace and returns the final verdicts. */
  endSession(sessionId: string): Promise<SessionReport>;
  /** The session's report so far, without closing it; `undefined` for an unknown session. */
  report(sessionId: string): Promise<SessionReport | undefined>;
  /** The session's raw state (plain JSON), or `undefined`. */
  session(sessionId: string): Promise<MonitorSession | undefined>;
  /**
   * The moves out of the session's current state (the tool calls of the last response taken as run, as the next
   * model call takes them) and which are valid now: a
   * transition lists it, its guard passes when judged with `input` (default confidence 1, method `tool_call`, no
   * metadata), and it breaks no constraint; each other move says why not. Changes nothing.
   * @throws {InvalidOptionError} (as a rejection) for a confidence outside [0, 1] or metadata that is not an object.
   */
  validNextStates(sessionId: string, input?: NextStateInput): Promise<NextStates>;
  /**
   * The session's classified steps, oldest first, each with its state, method, confidence and time: the last
   * `historyLimit` (default 100) of them, with how many came before. `undefined` for an unknown session.
   */
  history(sessionId: string): Promise<SessionHistory | undefined>;
  /**
   * Puts the session back in the initial state, as new: trace, steps, verdicts, pending interventions and loop
   * history are dropped (waits for the session's calls in flight). Its stored record is replaced, not deleted.
   */
  resetSession(sessionId: string): Promise<void>;
  /**
   * Waits for the calls in flight, flushes the store (one with `settled()`, as the Redis store) and the registered
   * OpenTelemetry providers, then refuses every later session call with a `ClosedError`. Idempotent: a second call
   * gives the same promise. A store or client passed in stays open: its owner closes it.
   */
  close(): Promise<void>;
  /**
   * Emits a `shadow-disagreement` event to this monitor's listeners, beside the workflow's own events: how a shadow
   * verifier reports what its candidate judged differently. It changes no session.
   */
  recordShadowDisagreement(sessionId: string, disagreement: ShadowDisagreementSummary): void;
  /** Subscribes to an event; returns the unsubscribe function. */
  on<Name extends keyof MonitorEvents>(event: Name, listener: (payload: MonitorEvents[Name]) => void): () => void;
  /** Embeds the workflow's exemplars now, so the first call does not wait. The same as {@link Monitor.ready}. */
  warmUp(): Promise<void>;
  /**
   * Resolves when the workflow's exemplars are embedded (at once without embeddings); rejects when embedding them
   * failed or ran out of `warmUpTimeoutMs` (a later call tries again). The monitor starts this itself: a model call
   * that arrives earlier waits for it up to the embedding budget, then goes on without the exemplar tier (a counted
   * miss). Await it at startup to be sure the first responses are classified with exemplars.
   */
  ready(): Promise<void>;
  /**
   * Sessions of conversations that name none: the adapters place each model call that carries no thread or session
   * id in the session whose recorded history its request continues (see `createConversationSessions`).
   */
  readonly conversations: ConversationSessions<MonitorSession>;
  /** Panoptes' own failures so far, by cause. */
  misses(): Readonly<Partial<Record<MissCause, number>>>;
  /** The loop detector in use, when loop detection is on. */
  readonly loops?: LoopDetector;
  /**
   * Gives the loop detector tool results as soon as a host has them, rather than with the next request (an AI SDK
   * stop condition runs before that request). Results it has seen are not counted again. Nothing without loops.
   */
  observeToolResults(sessionId: string, toolResults: LoopToolResult[]): Promise<LoopReport | null>;
  /**
   * Tells the loop detector the host just summarised or trimmed the session's context: `condensation` reports when
   * that happens 10 times (its option) in a row without a tool call making progress. Nothing without loops.
   */
  observeCondensation(sessionId: string): Promise<LoopReport | null>;
}
