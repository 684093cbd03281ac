import type { ChatMessage, ToolCall } from '../messages/index.js';
import type { Rubric, RubricScope } from './rubric.js';

/** What a rubric is judged on. Which parts are read depends on the rubric's scope. */
export interface JudgeInput {
  /** The conversation so far (system messages are not shown to the judge). */
  messages?: readonly ChatMessage[];
  /** tool_call scope: the call about to run. */
  call?: ToolCall;
  /** turn scope: the response to judge; without it, the last assistant message of `messages`. */
  response?: string;
  /** Budgets are counted per session. */
  sessionId?: string;
  /** The workflow state the agent is in, for `applies_to.states`. */
  state?: string;
  /** The rule that asks (a `judged(...)` condition), for `applies_to.rules`. */
  rule?: string;
  /** The turn's number, from 1, for `every_turns`. */
  turn?: number;
}

/** How much of the conversation the judged material holds. */
export interface JudgedTextLimits {
  /** tool_call scope: the most recent tool results shown. @default 3 */
  recentToolResults?: number;
  /** conversation scope: the most recent messages shown. @default 40 */
  transcriptMessages?: number;
  /** Longest text of one message or result; the rest is cut with a marker. @default 4000 */
  maxChars?: number;
}

/** Whether a rubric applies to a judgment of its scope on this input (`applies_to`, `every_turns`). */
export function rubricApplies(rubric: Rubric, scope: RubricScope, input: JudgeInput): boolean {
  if (rubric.scope !== scope) return false;
  const { tools, states, rules } = rubric.appliesTo;
  if (tools && tools.length > 0 && (input.call === undefined || !tools.includes(input.call.name))) return false;
  if (states && states.length > 0 && (input.state === undefined || !states.includes(input.state))) return false;
  if (rules && rules.length > 0 && input.rule !== undefined && !rules.includes(input.rule)) return false;
  if (rubric.everyTurns > 1 && (input.turn === undefined || input.turn % rubric.everyTurns !== 0)) return false;
  return true;
}

/**
 * The judged material for a scope, as the model sees it and as evidence must quote it. tool_call: the user's
 * requests, the recent tool results and the call; turn: the user's last message and the response; conversation:
 * the transcript.
 */
export function judgedText(scope: RubricScope, input: JudgeInput, { recentToolResults = 3, transcriptMessages = 40, maxChars = 4000 }: JudgedTextLimits = {}): string {
  const messages = (input.messages ?? []).filter((message) => message.role !== 'system');
  const cut = (text: string) => (text.length > maxChars ? `${text.slice(0, maxChars)} [... ${text.length - maxChars} characters cut]` : text);
  if (scope === 'tool_call') {
    const requests = messages.filter((message) => message.role === 'user').map((message) => cut(message.content));
    const results = (recentToolResults > 0 ? messages.filter((message) => message.role === 'tool').slice(-recentToolResults) : []).map((message) => `[${message.name ?? 'tool'}] ${cut(message.content)}`);
    const call = input.call ? `${input.call.name}(${cut(stableJson(input.call.args))})` : '(no call)';
    return [section("The user's requests", requests), section('Recent tool results', results), `## The call about to run\n${call}`].join('\n\n');
  }
  if (scope === 'turn') {
    const lastUser = messages.findLast((message) => message.role === 'user');
    const response = input.response ?? messages.findLast((message) => message.role === 'assistant')?.content ?? '';
    return [section("The user's last message", lastUser ? [cut(lastUser.content)] : []), `## The response\n${cut(response)}`].join('\n\n');
  }
  const transcript = messages.slice(-transcriptMessages).map((message) => `${speaker(message)}: ${cut(messageText(message))}`);
  return section('The conversation', transcript);
}

function section(title: string, lines: readonly string[]): string {
  return `## ${title}\n${lines.length === 0 ? '(none)' : lines.join('\n')}`;
}

function speaker(message: ChatMessage): string {
  return message.role === 'tool' ? `tool ${message.name ?? ''}`.trim() : message.role;
}

function messageText(message: ChatMessage): string {
  if (message.role !== 'assistant' || !message.toolCalls?.length) return message.content;
  const calls = message.toolCalls.map((call) => `${call.name}(${stableJson(call.args)})`).join(', ');
  return message.content ? `${message.content} [calls ${calls}]` : `[calls ${calls}]`;
}

/** JSON with sorted keys, so the same arguments always render (and hash) the same. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    return Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }) ?? 'null';
}

/** Text compared for evidence and cache keys: whitespace runs as one space, trimmed, case-folded. */
export function normaliseText(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}
