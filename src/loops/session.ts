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
}

/** Builds the function that makes an empty session sized for the options. @internal */
export function sessionFactory(config: ResolvedLoopOptions): () => LoopSession {
  // The call history must reach back as far as the longest call check: a full tool cycle or a run of repeats.
  const callCapacity = Math.max(config.repeatedAction || 1, config.repeatedError || 1, config.toolCycle ? config.toolCycle.maxLength * config.toolCycle.repetitions : 1);
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
  });
}
