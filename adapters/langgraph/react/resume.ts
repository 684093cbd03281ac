import { Command } from '@langchain/langgraph';
import { systemClock, type Clock } from '../../../src/index.js';
import type { ReactControllerState } from './state.js';

/** What {@link resumeCommand} reads of a compiled ReAct graph: its state at the pause. */
interface PausedGraph {
  getState(config: Record<string, unknown>): Promise<{ values: unknown; createdAt?: string }>;
}

/**
 * A `Command` that resumes a ReAct run paused by an `interrupt()` (a human review) and leaves the pause out of its
 * time budget: `timeoutMs` counts from the run's first model call, so a review that took an hour would otherwise end
 * the run `timeout` at its next step. The pause is measured from the thread's last checkpoint (written just before
 * the paused step began) to now, and the run's start is moved by as much. A run without a start, or a thread
 * without a checkpoint, resumes unchanged.
 * @example
 * await graph.invoke(await resumeCommand(graph, thread, { decision: 'approve' }), thread);
 */
export async function resumeCommand(graph: PausedGraph, config: Record<string, unknown>, resume: unknown, { clock = systemClock }: { clock?: Clock } = {}): Promise<Command<unknown, any, any>> {
  // `any`: the command fits any ReAct graph's `invoke`, whose commands are typed by that graph's nodes and update
  const snapshot = await graph.getState(config);
  const react = (snapshot.values as { react?: ReactControllerState } | undefined)?.react;
  const pausedAt = snapshot.createdAt === undefined ? Number.NaN : Date.parse(snapshot.createdAt);
  if (react?.startedAt === undefined || Number.isNaN(pausedAt)) return new Command({ resume });
  const pausedMs = Math.max(0, clock.now() - pausedAt);
  // `react` merges key by key (its reducer), so the update names only the start; LangGraph types updates as whole values
  const update: Partial<ReactControllerState> = { startedAt: react.startedAt + pausedMs };
  return new Command({ resume, update: { react: update } });
}
