/**
 * Calls `panoptesMiddleware` refuses as soon as the model asks for them, before any other middleware sees
 * the answer: LangChain's `humanInTheLoopMiddleware` asks a human about every call of the answer a thread ends with, in
 * its `afterModel` hook, so a call Panoptes will refuse must not be in that answer when the hook runs, whichever order
 * the two middlewares are listed in. The answer goes into the thread without the refused calls, which it records in
 * `response_metadata.panoptes.refused`; the calls and their error ToolMessages are put back as soon as no human can
 * be asked about them any more: in `afterModel` when every call was refused (the run then goes back to the model), or
 * with the first result of the answer's other calls. A model request always carries the whole answer.
 * @module
 */
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ToolCall as LangChainToolCall } from '@langchain/core/messages/tool';
import { Command, isCommand } from '@langchain/langgraph';
import { refusalMessage } from './tool-decision.js';

/** A call refused as soon as the model asked for it, as its answer records it. */
export interface RefusedCall {
  /** The call as the model made it. */
  call: LangChainToolCall & { id: string };
  /** Its place among the answer's tool calls. */
  index: number;
  /** The refusal, written for the model. */
  reason: string;
}

/** The calls Panoptes refused in this answer, as it recorded them; empty for any other message. */
export function refusedCallsOf(message: BaseMessage | undefined): RefusedCall[] {
  if (!message || !AIMessage.isInstance(message)) return [];
  const refused = (message.response_metadata as { panoptes?: { refused?: unknown } } | undefined)?.panoptes?.refused;
  return Array.isArray(refused) ? (refused as RefusedCall[]) : [];
}

/** The refused calls the answer does not hold (yet): those to put back. */
export function unrestoredCalls(answer: BaseMessage): RefusedCall[] {
  const refused = refusedCallsOf(answer);
  if (refused.length === 0) return refused;
  const held = new Set(((answer as AIMessage).tool_calls ?? []).map((call) => call.id));
  return refused.filter(({ call }) => !held.has(call.id));
}

/**
 * The answer without the refused calls, recording them. It keeps the answer's id, so it replaces the answer in the
 * thread (it must have one: the agent gives an answer without an id one when it stores it, which is too late here).
 * Tool-call content blocks of the refused calls go too: a message in LangChain's standard content format (`v1`)
 * would make them tool calls again.
 */
export function withoutRefusedCalls(answer: AIMessage, refused: readonly RefusedCall[]): AIMessage {
  if (answer.id === undefined) answer.id = answer.lc_kwargs.id = `run-${globalThis.crypto.randomUUID()}`;
  const ids = new Set(refused.map(({ call }) => call.id));
  const isRefusedBlock = (block: unknown) => (block as { type?: unknown }).type === 'tool_call' && ids.has((block as { id?: string }).id ?? '');
  const content = Array.isArray(answer.content) ? answer.content.filter((block) => !isRefusedBlock(block)) : answer.content;
  const panoptes = { ...(answer.response_metadata as { panoptes?: object }).panoptes, refused: [...refusedCallsOf(answer), ...refused] };
  return copyOf(answer, { content, tool_calls: answer.tool_calls!.filter((call) => !ids.has(call.id ?? '')), response_metadata: { ...answer.response_metadata, panoptes } });
}

/** The answer with its refused calls back in their places, beside whatever calls it holds now (a human may have edited them). */
export function withRefusedCalls(answer: AIMessage): AIMessage {
  const missing = unrestoredCalls(answer);
  if (missing.length === 0) return answer;
  const calls = [...(answer.tool_calls ?? [])];
  for (const { call, index } of [...missing].sort((a, b) => a.index - b.index)) calls.splice(Math.min(index, calls.length), 0, call);
  return copyOf(answer, { tool_calls: calls });
}

/** The error ToolMessages of refused calls. Their ids are fixed, so writing them twice (from two tool calls) keeps one each. */
export function refusalMessages(refused: readonly RefusedCall[]): ToolMessage[] {
  return refused.map(({ call, reason }) => refusalMessage({ id: call.id, name: call.name, args: {} }, reason, { id: `panoptes-refusal-${call.id}` }));
}

/** The messages that put an answer's refused calls back: the whole answer, then the refusals not yet in `messages`. */
export function restorationOf(answer: AIMessage, messages: readonly BaseMessage[]): BaseMessage[] {
  const answered = new Set(messages.flatMap((message) => (ToolMessage.isInstance(message) ? [message.tool_call_id] : [])));
  return [withRefusedCalls(answer), ...refusalMessages(unrestoredCalls(answer).filter(({ call }) => !answered.has(call.id)))];
}

/**
 * For a tool call, the messages that put back the calls refused in its answer, when that answer still lacks them: the
 * other calls are past the human now (the tool node runs only what remains after `humanInTheLoopMiddleware`).
 */
export function restorationForToolCall(messages: readonly BaseMessage[], toolCallId: string | undefined): BaseMessage[] | undefined {
  if (toolCallId === undefined) return undefined;
  const answer = messages.findLast((message) => AIMessage.isInstance(message) && message.tool_calls?.some((call) => call.id === toolCallId)) as AIMessage | undefined;
  return answer && unrestoredCalls(answer).length > 0 ? restorationOf(answer, messages) : undefined;
}

/** A tool call's result, with the restoration of its answer written before it. */
export function withRestoration(result: ToolMessage | Command, restoration: readonly BaseMessage[]): Command {
  if (!isCommand(result)) return new Command({ update: { messages: [...restoration, result] } });
  const { update } = result;
  // A command's update is an object of channel values or a list of [channel, value] pairs.
  const merged = Array.isArray(update)
    ? [['messages', restoration] as [string, unknown], ...update]
    : { ...update, messages: [...restoration, ...asList((update as { messages?: unknown } | undefined)?.messages)] };
  return new Command({ graph: result.graph, goto: result.goto, resume: result.resume, update: merged });
}

/**
 * The messages as the model must read them: every answer whole, each refused call answered by its refusal right
 * after the answer's other results. A thread lacks them only when the run went back to the model without running the
 * answer's other calls (a human rejected them), where the thread cannot be mended in place.
 */
export function withRestoredAnswers(messages: BaseMessage[]): BaseMessage[] {
  let restored: BaseMessage[] | undefined;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (!AIMessage.isInstance(message) || unrestoredCalls(message).length === 0) {
      restored?.push(message);
      continue;
    }
    restored ??= messages.slice(0, index);
    let end = index + 1;
    while (end < messages.length && ToolMessage.isInstance(messages[end])) end++;
    const block = messages.slice(index + 1, end);
    const [answer, ...refusals] = restorationOf(message, block);
    restored.push(answer!, ...block, ...refusals);
    index = end - 1;
  }
  return restored ?? messages;
}

function copyOf(answer: AIMessage, fields: Partial<Pick<AIMessage, 'content' | 'tool_calls' | 'response_metadata'>>): AIMessage {
  const copy = new AIMessage({
    id: answer.id,
    name: answer.name,
    content: answer.content,
    additional_kwargs: answer.additional_kwargs,
    response_metadata: answer.response_metadata,
    tool_calls: answer.tool_calls,
    invalid_tool_calls: answer.invalid_tool_calls,
    ...(answer.usage_metadata ? { usage_metadata: answer.usage_metadata } : {}),
    ...fields,
  } as ConstructorParameters<typeof AIMessage>[0]);
  return copy;
}

function asList(value: unknown): unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}
