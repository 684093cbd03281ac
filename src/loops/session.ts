import type { StepKey } from './alternation.js';
import type { CallRecord } from './call-history.js';
import type { LongWindow } from './long-window.js';
import { initialMonologue, type MonologueState } from './monologue.js';
import type { ResolvedLoopOptions } from './options.js';
import { Ring } from './ring.js';
import type { WindowEntry } from './semantic-window.js';
import type { LoopHint } from './types.js';

/** Everything the detector keeps about one session. Every list is bounded, so a session's size is too. @internal */
export interface LoopSession {
  /** Steps with text or calls seen so far; numbers steps from 1. */
  steps: number;
  /** The newest calls, as many as the call checks look back. */
  calls: Ring<CallRecord>;
  /** Calls of the latest step with calls, waiting for their results. */
  awaiting: CallRecord[];
  /** The newest step keys, for `alternation`. */
  recent: Ring<StepKey>;
  monologue: MonologueState;
  /** The short semantic window. */
  window: Ring<WindowEntry>;
  /** The long semantic window, made on the first embedded step when configured. */
  long: LongWindow | undefined;
  /** Detections per loop id, for escalation. */
  loops: Map<string, number>;
  /** The hint waiting for the next model call. */
  pending: LoopHint | undefined;
  /** Calls to tools that are not offered, for `unknown-tool`. */
  unknownCalls: number;
  /** Condensations since a tool call last made progress, for `condensation`. */
  condensations: number;
}

/** Builds the function that makes an empty session sized for the options. @internal */
export function sessionFactory(config: ResolvedLoopOptions): () => LoopSession {
  // The call history must reach back as far as the longest call check: a full tool cycle or a run of repeats.
  const callCapacity = callHistoryLength(config);
  return () => ({
    steps: 0,
    calls: new Ring(callCapacity),
    awaiting: [],
    recent: new Ring(config.alternation || 0),
    monologue: initialMonologue(),
    window: new Ring(config.window),
    long: undefined,
    loops: new Map(),
    pending: undefined,
    unknownCalls: 0,
    condensations: 0,
  });
}

function callHistoryLength(config: ResolvedLoopOptions): number {
  const { repeatedAction, repeatedActionWarning, repeatedError, toolCycle, unchangedResult } = config;
  return Math.max(repeatedAction || 1, repeatedActionWarning || 1, repeatedError || 1, unchangedResult || 1, toolCycle ? toolCycle.maxLength * toolCycle.repetitions : 1);
}

/**
 * A new user turn (`scopeToUserTurn`): the structural checks and their escalation start afresh, and a stop
 * due from the last turn is dropped (that run has ended; the user's new message starts another). A pending hint is
 * kept: it is still good advice. The semantic windows and the semantic loops' escalation are kept too: the session's
 * history still says what the agent has already tried.
 * @internal
 */
export function startUserTurn(session: LoopSession, config: ResolvedLoopOptions): void {
  session.calls = new Ring(callHistoryLength(config));
  session.awaiting = [];
  session.recent = new Ring(config.alternation || 0);
  session.monologue = initialMonologue();
  session.unknownCalls = 0;
  session.condensations = 0;
  if (session.pending?.action === 'stop') session.pending = undefined;
  for (const loopId of [...session.loops.keys()]) if (!loopId.startsWith('semantic:')) session.loops.delete(loopId);
}
