import type { ToolCall } from '../messages/index.js';
import type { MissCause } from '../monitor/fail-open.js';
import type { StreamWatch } from './stream-watch.js';

/**
 * The result of one tool call, as the detector compares it. `content` may be text or any value (it is compared as
 * canonical JSON); `isError` marks a call that failed, which the `repeated-error` check counts.
 */
export interface LoopToolResult {
  /** The id of the call this answers; the surest way to pair a result with its call. */
  toolCallId?: string;
  /** The tool's name; pairs the result with a call when there is no id. */
  name?: string;
  /** What the tool returned. */
  content: unknown;
  /**
   * Whether the call failed.
   * @default false
   */
  isError?: boolean;
}

/**
 * One step of an agent: what it did in one model turn. Framework-free: adapters build it from their host's messages
 * (see {@link loopStepsFromMessages} and {@link toolResultsAfterLastTurn}).
 *
 * **Where tool results go.** A host that sees a whole step at once (the AI SDK's `stopWhen` steps, a recorded
 * transcript) puts the results in the same step as the calls. A host that sees the model's response before its tools
 * run (the monitor's `afterModel`) observes the step without results, then observes the results on their own, as a
 * step with only `toolResults`, when they are known (the next `beforeModel`). A results-only step is not a new step:
 * it completes the calls already observed, paired by `toolCallId`, else by tool name, else in order. Results that
 * pair with no call (an exempt tool's, or one seen twice) are ignored.
 */
export interface LoopStep {
  /** The assistant's text in this turn. */
  text?: string;
  /** The tool calls the assistant asked for, in order. */
  toolCalls?: readonly ToolCall[];
  /** Results of this step's calls, or of the previous step's calls in a results-only step. */
  toolResults?: readonly LoopToolResult[];
  /**
   * The model's reasoning in this turn, when the host exposes it: only the `repeated-line` check reads it (a
   * line repeated anywhere in the response or its reasoning).
   */
  reasoning?: string;
  /**
   * The names of the tools offered to the model on this call. With them (or the detector's `tools` option), a call to
   * any other name counts towards `unknown-tool`. Without either, that check does not run.
   */
  availableTools?: readonly string[];
  /**
   * This step starts a new user turn (a new user message): with `scopeToUserTurn` (the default), the structural
   * checks start counting afresh. The semantic window keeps the session's history.
   */
  userTurn?: boolean;
  /**
   * The host summarised or trimmed the context before this step: counts towards `condensation` until a tool call
   * makes progress.
   */
  condensed?: boolean;
}

/** What kind of repetition was found. */
export type LoopKind =
  | 'semantic'
  | 'repeated-action'
  | 'repeated-error'
  | 'monologue'
  | 'alternation'
  | 'tool-cycle'
  | 'repeated-text'
  | 'repeated-line'
  | 'unknown-tool'
  | 'unchanged-result'
  | 'condensation';

/** What the host should do: nudge on the next model call, nudge harder, or end the run. */
export type LoopAction = 'hint' | 'stronger-hint' | 'stop';

/** A tool call named in evidence: its name and its canonical JSON arguments, cut to 200 characters. */
export interface LoopCallEvidence {
  name: string;
  args: string;
}

/** Why the detector believes the agent is looping. Which fields are set depends on the kind. */
export interface LoopEvidence {
  /**
   * Step numbers (1-based, per session) involved, oldest first: the two similar steps (`semantic`), the steps of
   * the repeated calls (`repeated-action`, `repeated-error`, `tool-cycle`), the repeated steps (`monologue`,
   * `alternation`), or the one response (`repeated-text`).
   */
  steps: number[];
  /** How many repetitions were seen: calls, steps, cycles or passages. 2 for `semantic` (a pair). */
  repetitions: number;
  /** Cosine similarity of the two steps (`semantic` only). */
  similarity?: number;
  /** Which window found the similar step (`semantic` only). */
  window?: 'short' | 'long';
  /** The repeated call (`repeated-action`, `repeated-error`) or the calls of one cycle (`tool-cycle`). */
  calls?: LoopCallEvidence[];
  /** The repeated text (`monologue`) or passage (`repeated-text`), cut to 200 characters. */
  text?: string;
}

/** One loop found on a step, before escalation decided what to do about it. */
export interface LoopFinding {
  kind: LoopKind;
  /**
   * Identity of the loop within its session, such as `repeated-action:3k2f9x`: the same loop found again has the same
   * id, and escalation counts per id.
   */
  loopId: string;
  evidence: LoopEvidence;
  /** Short description of what repeated, written for the model, e.g. "you called `search` 4 times with the same arguments and got the same result". */
  detail: string;
  /**
   * The action this finding calls for whatever its detection count (`unknown-tool` stops at its `stopAt`th call);
   * otherwise escalation decides.
   */
  action?: LoopAction;
}

/** What {@link LoopDetector.observe} returns when the step completes a loop. */
export interface LoopReport extends LoopFinding {
  /** The step that completed the loop (for a results-only observation, the step whose calls they answer). */
  step: number;
  /** How many times this loop has now been detected in this session: 1 for the first. */
  detection: number;
  /** The strongest action among every loop found on this step. */
  action: LoopAction;
  /** Text for the model: the hint, the stronger hint, or the stop message. Also queued for {@link LoopDetector.takePendingHint}. */
  hint: string;
  /** Text for developers and logs. */
  message: string;
  /** Other loops found on the same step; each was escalated too, and `action` accounts for them. */
  also: Array<LoopFinding & { detection: number }>;
}

/** A hint waiting for the next model call of a session. */
export interface LoopHint {
  action: LoopAction;
  /** The text to inject (as a system note) or, for `stop`, the reason to end the run. */
  text: string;
  kind: LoopKind;
  loopId: string;
  /** The step that completed the loop. */
  step: number;
}

/** Per-call options of the detector. */
export interface LoopObserveOptions {
  /**
   * Keeps the histories of different tenants apart even when their session ids are equal.
   * @default ''
   */
  tenant?: string;
}

/** The loop detector returned by {@link createLoopDetector}. */
export interface LoopDetector {
  /**
   * Records a step of a session and checks it: the structural checks first, then (with an embedder) the semantic
   * one under the `timeoutMs` budget. Never rejects: Panoptes' own failures are counted, logged once per cause, and
   * leave the structural result. Calls for one session are checked in the order made.
   * @returns The loop this step completed, or `null`.
   */
  observe(sessionId: string, step: LoopStep, options?: LoopObserveOptions): Promise<LoopReport | null>;
  /**
   * The same without the semantic check, synchronously: for hosts that cannot await (a `stopWhen` condition) or
   * that run no embedder. Do not mix it with `observe` on one session while an `observe` is still running.
   */
  observeStructural(sessionId: string, step: LoopStep, options?: LoopObserveOptions): LoopReport | null;
  /**
   * Returns the hint waiting for the session's next model call and clears it: what a host injects before calling
   * the model (or, when its action is `stop`, the reason to end the run instead).
   */
  takePendingHint(sessionId: string, options?: LoopObserveOptions): LoopHint | undefined;
  /** The hint waiting for the session's next model call, left in place (for stop conditions that only look). */
  peekPendingHint(sessionId: string, options?: LoopObserveOptions): LoopHint | undefined;
  /**
   * A watch over one streamed response: feed it the text and reasoning deltas as they arrive and it says when the
   * response starts chanting (`repeated-text`, `repeated-line`), so the host can cut the stream short. It records
   * nothing: observe the (cut) response as usual afterwards, which reports the same loop and escalates it.
   */
  watchStream(): StreamWatch;
  /** Forgets a session: its history, its escalation counts and any pending hint (at the end of a run). */
  resetSession(sessionId: string, options?: LoopObserveOptions): void;
  /**
   * The session's history as plain JSON (the long window excepted), for a store shared between processes; `undefined`
   * when the detector holds nothing for it. The monitor carries it in its own session when its store is shared.
   */
  exportSession?(sessionId: string, options?: LoopObserveOptions): unknown;
  /** Replaces the session's history with one `exportSession` gave (anything else starts the session afresh). */
  importSession?(sessionId: string, snapshot: unknown, options?: LoopObserveOptions): void;
  /**
   * Embeds a probe text under a budget of its own (default 30 s, not `timeoutMs`), so a lazily loaded model is ready
   * before the first real step; it also fixes the expected vector length. Call it once at startup. Resolves `true`
   * when the embedder answered with a valid vector, `false` otherwise (counted and logged, never thrown) or when
   * there is no embedder.
   * @throws {InvalidOptionError} (as a rejection) when `timeoutMs` is not a positive number.
   */
  warmUp(options?: { timeoutMs?: number }): Promise<boolean>;
  /** Panoptes' own failures so far, by cause: `embedding` (timeout, error, invalid vector) and `internal`. */
  misses(): Readonly<Partial<Record<MissCause, number>>>;
  /** Sessions currently held (after dropping expired ones). */
  readonly sessionCount: number;
}
