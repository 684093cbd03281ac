import { excerpt } from './hints.js';
import type { LoopAction, LoopFinding } from './types.js';

/** How many calls to tools that are not offered get a hint, and how many stop the run. @internal */
export interface UnknownToolThresholds {
  hintAt: number;
  stopAt: number;
}

/**
 * `unknown-tool`: the model keeps calling tools that are not offered (one agent spent about $26 in one turn that way,
 * langchainjs#37961). `count` is the session's calls to unknown tools so far (in the current user turn, when scoped):
 * at `hintAt` a hint that names the tools that exist, at `stopAt` the end of the run, whatever the escalation.
 * @internal
 */
export function findUnknownTool(count: number, names: readonly string[], available: readonly string[], stepNumber: number, { hintAt, stopAt }: UnknownToolThresholds): LoopFinding | null {
  if (count < hintAt) return null;
  const action: LoopAction = count >= stopAt ? 'stop' : 'hint';
  const offered = available.length === 0 ? 'no tools are available' : `the available tools are ${available.map((name) => `\`${name}\``).join(', ')}`;
  return {
    kind: 'unknown-tool',
    loopId: 'unknown-tool',
    action,
    evidence: { steps: [stepNumber], repetitions: count, calls: names.map((name) => ({ name, args: '' })) },
    detail: excerpt(`you called ${names.map((name) => `\`${name}\``).join(', ')}, which does not exist (${count} calls to tools that do not exist so far); ${offered}`, 600),
  };
}
