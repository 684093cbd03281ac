import type { MonitorSession, StepRecord } from './types.js';

/** One classified step of a session, as `monitor.history` lists it. */
export interface HistoryEntry {
  /** 1-based, unique within the session. */
  step: number;
  /** The model turn it came from. */
  turn: number;
  state: string;
  method: StepRecord['method'];
  confidence: number;
  /** When it was classified, in milliseconds since the epoch; absent for steps stored before times were kept. */
  at?: number;
  /** The response was withheld before delivery: its state did not enter. */
  withheld?: true;
  /** The response was the model's second try after a withheld one. */
  regenerated?: true;
  /** A tool call refused before it ran (by the workflow or a guard): its state did not enter. */
  refused?: true;
}

/** What `monitor.history` answers: the session's last steps, oldest first, and how many came before them. */
export interface SessionHistory {
  sessionId: string;
  /** With several workflows (`createMonitor({ workflows })`): the id of the session's workflow. */
  workflowId?: string;
  /** The state the session started in, and when. */
  initial: { state: string; at: number };
  /** The state it is in now. */
  state: string;
  /** The last `limit` steps, oldest first. */
  steps: HistoryEntry[];
  /** Steps classified in all, including those no longer kept. */
  total: number;
  /** Steps no longer kept (`total` minus those listed). */
  dropped: number;
  /** How many steps a session keeps: the monitor's `historyLimit`. */
  limit: number;
}

/** The session's steps as a history, with the times made absolute (a step keeps its time as an offset). */
export function historyOf(sessionId: string, session: MonitorSession, limit: number, initialState: string): SessionHistory {
  const { workflow: snapshot } = session;
  const refusedSteps = new Set(snapshot.refusals.flatMap((refusal) => (refusal.step === undefined ? [] : [refusal.step])));
  const steps = session.steps.map((step): HistoryEntry => {
    const entry: HistoryEntry = { step: step.index, turn: step.turn, state: step.state, method: step.method, confidence: step.confidence };
    if (typeof step.elapsedMs === 'number') entry.at = snapshot.startedAt + step.elapsedMs;
    if (step.withheld) entry.withheld = true;
    if (step.regenerated) entry.regenerated = true;
    if (refusedSteps.has(step.index)) entry.refused = true;
    return entry;
  });
  return {
    sessionId,
    // A session starts in the workflow's initial state (a fork of a conversation, in its source's first state).
    initial: { state: snapshot.trace.length === snapshot.traceLength ? snapshot.trace[0]! : initialState, at: snapshot.startedAt },
    state: snapshot.state,
    steps,
    total: session.stepCount,
    dropped: session.stepCount - steps.length,
    limit,
  };
}

