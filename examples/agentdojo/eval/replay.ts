/**
 * Replays one recorded run through the sentinel in message order: the system prompt and the user's messages are
 * trusted sources, each assistant tool call is decided before its recorded result is fed back through `recordResult`.
 */
import { createFactStore, createSentinel, type ChatMessage, type CheckResult, type ConditionJudge, type Rulebase } from 'panoptes';
import { matchesCall, type Suite, type TaskCall } from './goal-call.js';
import { parseToolOutput, textOf, type Run } from './runs.js';

export type Decision = 'allow' | 'refuse' | 'ask';

export interface CallDecision {
  msg: number;
  call: number;
  tool: string;
  decision: Decision;
  reason: string;
  us: number;
}

/** What a check means for the eval: allowed, held for the user (only questions stand in the way), or refused. */
export function decisionOf(check: CheckResult): Decision {
  if (check.allowed) return 'allow';
  const standing = check.blockers.filter((blocker) => !(blocker.kind === 'condition' && blocker.decisive === false));
  return check.status === 'blocked' && standing.length > 0 && standing.every((blocker) => blocker.kind === 'ask') ? 'ask' : 'refuse';
}

/**
 * The stand-in for the later judge: it answers whether the user's request covers the call from the ground truth of
 * the task the user actually gave (the call matches one of its calls on the target parameters). An oracle, so the
 * figure it gives is what a perfect judge would reach, not what a model judge will.
 */
export function oracleJudge(suite: Suite, run: Run): ConditionJudge {
  const task = run.user_task_id.startsWith('injection_task')
    ? suite.injection_tasks.find((candidate) => candidate.id === run.user_task_id)
    : suite.user_tasks.find((candidate) => candidate.id === run.user_task_id);
  const calls: TaskCall[] = task?.ground_truth ?? [];
  return ({ tool, args }) => {
    if (calls.length === 0) return 'unknown';
    return calls.some((call) => matchesCall(suite, call, tool, args as Record<string, unknown>)) ? 'yes' : 'no';
  };
}

/** A judge for `judged(...)` conditions, or one made per run from the conversation so far (what a model judge reads). */
export type ReplayJudge = ConditionJudge | { forRun: (messages: () => readonly ChatMessage[]) => ConditionJudge };

/** Decides every tool call of a run; `judge` answers `judged(...)` conditions (none: the user is asked). */
export async function replayRun(run: Run, rulebase: Rulebase, judge?: ReplayJudge): Promise<CallDecision[]> {
  const facts = createFactStore();
  // The conversation as a host would hold it when each call is checked: what a model judge is shown.
  const conversation: ChatMessage[] = [];
  const conditionJudge = judge === undefined ? undefined : typeof judge === 'function' ? judge : judge.forRun(() => conversation);
  const sentinel = createSentinel({ rulebase, facts, unguardedTools: 'allow', ...(conditionJudge ? { judge: conditionJudge } : {}) });
  const decisions: CallDecision[] = [];
  for (const [msg, message] of run.messages.entries()) {
    if (message.role === 'system') {
      facts.provenance.recordMessage('system', textOf(message.content));
      conversation.push({ role: 'system', content: textOf(message.content) });
    } else if (message.role === 'user') {
      facts.noteUserWords([textOf(message.content)]);
      conversation.push({ role: 'user', content: textOf(message.content) });
    } else if (message.role === 'assistant') {
      conversation.push({ role: 'assistant', content: textOf(message.content), toolCalls: (message.tool_calls ?? []).map((call) => ({ name: call.function, args: call.args && typeof call.args === 'object' ? call.args : {} })) });
      for (const [call, toolCall] of (message.tool_calls ?? []).entries()) {
        const args = toolCall.args && typeof toolCall.args === 'object' ? toolCall.args : {};
        const start = performance.now();
        const check = await sentinel.check(toolCall.function, args);
        const us = (performance.now() - start) * 1000;
        const decision = decisionOf(check);
        decisions.push({ msg, call, tool: toolCall.function, decision, reason: decision === 'allow' ? '' : check.text, us: Math.round(us * 10) / 10 });
      }
    } else if (message.role === 'tool' && message.tool_call) {
      conversation.push({ role: 'tool', name: message.tool_call.function, content: textOf(message.content) });
      const ok = message.error == null;
      sentinel.recordResult(message.tool_call.function, message.tool_call.args ?? {}, ok ? { ok: true, result: parseToolOutput(textOf(message.content)) } : { ok: false });
    }
  }
  return decisions;
}
