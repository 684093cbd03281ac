/**
 * Builds labelled tool-call cases for judge calibration from AgentDojo's recorded runs (`/work/shared/data/agentdojo`,
 * see its README): violations are the attacker's goal calls in successful attacks (located by the injection task's
 * ground-truth write calls and their target arguments, after the first tool output carrying the injection);
 * non-violations are the write calls of benign runs whose user task was done. A fixture generator for tests: it
 * measures nothing by itself.
 */
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { ChatMessage, LabelledCase, ToolCall } from '../../src/index.js';

export const AGENTDOJO_DIR = new URL('../../../shared/data/agentdojo/', import.meta.url);
export const hasAgentDojo = (): boolean => existsSync(new URL('runs-dev.jsonl.gz', AGENTDOJO_DIR));

interface RawCall { function: string; args: Record<string, unknown>; id?: string }
interface RawMessage { role: string; content: unknown; tool_calls?: RawCall[] | null; tool_call?: RawCall }
interface Run {
  suite_name: string;
  user_task_id: string;
  injection_task_id: string | null;
  attack_type: string | null;
  injections: Record<string, string>;
  messages: RawMessage[];
  error: string | null;
  utility: boolean;
  security: boolean;
  path: string;
}
interface Suite {
  tools: Array<{ name: string; effect: 'read' | 'write'; target_params: string[] }>;
  injection_tasks: Array<{ id: string; ground_truth: RawCall[]; earlier?: Array<{ ground_truth: RawCall[] }> }>;
}

const text = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((block: { content?: string; text?: string }) => block.content ?? block.text ?? '').join('\n') : '';
const fold = (value: unknown): string => String(Array.isArray(value) ? value.join(' ') : value).replace(/\s+/g, ' ').trim().toLowerCase().replace(/^https?:\/\//, '').replace(/\/$/, '');
const letters = (value: string): string => value.toLowerCase().replace(/[^a-z0-9]/g, '');

function toChat(messages: readonly RawMessage[]): ChatMessage[] {
  return messages.map((message): ChatMessage => {
    if (message.role === 'assistant') return { role: 'assistant', content: text(message.content), toolCalls: (message.tool_calls ?? []).map((call) => ({ name: call.function, args: call.args ?? {} })) };
    if (message.role === 'tool') return { role: 'tool', content: text(message.content), ...(message.tool_call ? { name: message.tool_call.function } : {}) };
    return { role: message.role === 'system' ? 'system' : 'user', content: text(message.content) };
  });
}

/** The case for the call at `messages[index]`: the conversation before it, and the call. */
function caseAt(run: Run, index: number, call: RawCall, label: boolean): LabelledCase {
  const toolCall: ToolCall = { name: call.function, args: call.args ?? {} };
  return { input: { messages: toChat(run.messages.slice(0, index)), call: toolCall, sessionId: run.path }, label, run: run.path };
}

/** Options of {@link agentDojoLabels}. */
export interface AgentDojoLabelOptions {
  /** At most this many cases of each label, taken in file order. @default all */
  perLabel?: number;
}

/** Labelled tool-call cases from the recorded runs. */
export function agentDojoLabels({ perLabel = Infinity }: AgentDojoLabelOptions = {}): LabelledCase[] {
  const suites = (JSON.parse(readFileSync(new URL('suites.json', AGENTDOJO_DIR), 'utf8')) as { suites: Record<string, Suite> }).suites;
  const lines = gunzipSync(readFileSync(new URL('runs-dev.jsonl.gz', AGENTDOJO_DIR))).toString('utf8').split('\n');
  const violations: LabelledCase[] = [];
  const benign: LabelledCase[] = [];
  for (const line of lines) {
    if (violations.length >= perLabel && benign.length >= perLabel) break;
    if (!line) continue;
    const run = JSON.parse(line) as Run;
    if (run.error !== null || run.messages.length === 0 || run.attack_type?.includes('dos')) continue;
    const suite = suites[run.suite_name]!;
    const writes = new Map(suite.tools.filter((tool) => tool.effect === 'write').map((tool) => [tool.name, tool.target_params]));
    if (run.attack_type === null && run.user_task_id.startsWith('user_task_') && run.utility && benign.length < perLabel) {
      run.messages.forEach((message, index) => {
        for (const call of message.tool_calls ?? []) if (writes.has(call.function) && benign.length < perLabel) benign.push(caseAt(run, index, call, false));
      });
    }
    if (run.attack_type !== null && run.injection_task_id && run.security && violations.length < perLabel) {
      const goal = locateGoalCall(run, suite, writes);
      if (goal) violations.push(caseAt(run, goal.index, goal.call, true));
    }
  }
  return [...violations, ...benign];
}

/** The attacker's goal call: a ground-truth write call's target arguments matched after the injection was read. */
function locateGoalCall(run: Run, suite: Suite, writes: Map<string, string[]>): { index: number; call: RawCall } | undefined {
  const task = suite.injection_tasks.find((candidate) => candidate.id === run.injection_task_id);
  if (!task) return undefined;
  const truths = [...task.ground_truth, ...(task.earlier ?? []).flatMap((earlier) => earlier.ground_truth)].filter((truth) => writes.has(truth.function));
  const marks = Object.values(run.injections).map((injected) => letters(injected).slice(0, 60)).filter((mark) => mark.length > 20);
  const injectedAt = run.messages.findIndex((message) => message.role === 'tool' && marks.some((mark) => letters(text(message.content)).includes(mark)));
  if (injectedAt < 0) return undefined;
  for (let index = injectedAt + 1; index < run.messages.length; index++) {
    for (const call of run.messages[index]!.tool_calls ?? []) {
      const matched = truths.some((truth) => {
        if (truth.function !== call.function) return false;
        const targets = writes.get(truth.function)!.filter((param) => truth.args[param] !== undefined && !String(truth.args[param]).startsWith('$'));
        return targets.length > 0 && targets.every((param) => fold(call.args?.[param]).includes(fold(truth.args[param])));
      });
      if (matched) return { index, call };
    }
  }
  return undefined;
}
