/**
 * AI SDK types <-> core types: the only file of the adapter that knows both.
 *
 * The prompt goes to the core as neutral messages and comes back only when an intervention changed something, and
 * then by splicing: every message the core left alone is the host's original object (file parts, provider options
 * and tool-call ids included), so a call without interventions reaches the model byte for byte as the host built it.
 * @module
 */
import type { AssistantTurn, ChatMessage, ToolCall } from '../../src/index.js';
import type { Prompt, PromptMessage, ResponseContent } from './host-types.js';

type ToolResultPart = Extract<Extract<PromptMessage, { role: 'tool' }>['content'][number], { type: 'tool-result' }>;
type ToolOutput = ToolResultPart['output'];

/** The prompt as neutral messages, with where each came from (a tool message with two results gives two). */
export interface ConvertedPrompt {
  messages: ChatMessage[];
  /** `origins[i]` is the index in the prompt of the message `messages[i]` came from. */
  origins: number[];
}

/**
 * Converts a prompt to the core's neutral messages. Text becomes `content`; everything else (files, reasoning,
 * provider-executed tool results, approval responses) rides along in `parts`, untouched and unread.
 * @example
 * toChatMessages([{ role: 'system', content: 'Be brief.' }]).messages // [{ role: 'system', content: 'Be brief.' }]
 */
export function toChatMessages(prompt: Prompt): ConvertedPrompt {
  const messages: ChatMessage[] = [];
  const origins: number[] = [];
  prompt.forEach((message, index) => {
    for (const converted of fromPromptMessage(message)) {
      messages.push(converted);
      origins.push(index);
    }
  });
  return { messages, origins };
}

function fromPromptMessage(message: PromptMessage): ChatMessage[] {
  switch (message.role) {
    case 'system':
      return [{ role: 'system', content: message.content }];
    case 'user': {
      const { text, others } = splitText(message.content);
      return [{ role: 'user', content: text, ...(others.length > 0 ? { parts: others } : {}) }];
    }
    case 'assistant': {
      const { text, others } = splitText(message.content);
      const toolCalls = others.flatMap((part) => (part.type === 'tool-call' ? [toCoreToolCall(part.toolCallId, part.toolName, part.input)] : []));
      const rest = others.filter((part) => part.type !== 'tool-call');
      return [{ role: 'assistant', content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}), ...(rest.length > 0 ? { parts: rest } : {}) }];
    }
    case 'tool':
      // One neutral message per result, as the core's tool messages answer one call each.
      return message.content.map((part): ChatMessage =>
        part.type === 'tool-result'
          ? { role: 'tool', content: outputText(part.output), toolCallId: part.toolCallId, name: part.toolName, isError: isErrorOutput(part.output), parts: [part] }
          : { role: 'tool', content: '', parts: [part] },
      );
  }
}

function splitText<Part extends { type: string }>(parts: readonly Part[]): { text: string; others: Part[] } {
  const texts: string[] = [];
  const others: Part[] = [];
  for (const part of parts) {
    if (part.type === 'text') texts.push((part as Part & { text: string }).text);
    else others.push(part);
  }
  return { text: texts.join('\n'), others };
}

/** What the model reads of a tool result, as text. */
function outputText(output: ToolOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value) ?? '';
    case 'execution-denied':
      return output.reason ?? 'Tool execution denied.';
    case 'content':
      return output.value.flatMap((item) => (item.type === 'text' ? [item.text] : [])).join('\n');
  }
}

const isErrorOutput = (output: ToolOutput) => output.type === 'error-text' || output.type === 'error-json' || output.type === 'execution-denied';

/**
 * Puts the core's edited messages back into the host's prompt. Messages the core did not touch are the host's
 * originals; an edited system message keeps its provider options; text added to a user message becomes a text part
 * of its own after the original parts (files stay where they were); new messages are converted.
 * @param converted What {@link toChatMessages} returned for `prompt`, the input the core edited.
 * @param edited The core's messages: the same objects where unchanged (the core copies only what it edits).
 * @example
 * const converted = toChatMessages(params.prompt);
 * const before = await monitor.beforeModel(sessionId, { messages: converted.messages });
 * if (before.action === 'proceed' && before.interventions.length > 0) params = { ...params, prompt: withInterventions(params.prompt, converted, before.messages) };
 */
export function withInterventions(prompt: Prompt, converted: ConvertedPrompt, edited: readonly ChatMessage[]): Prompt {
  const result: PromptMessage[] = [];
  let next = 0; // the next unconsumed neutral message of the input
  let lastOrigin = -1;
  const keep = (position: number) => {
    const origin = converted.origins[position]!;
    if (origin !== lastOrigin) result.push(prompt[origin]!);
    lastOrigin = origin;
  };
  for (const message of edited) {
    const source = converted.messages[next];
    if (message === source) {
      keep(next++);
    } else if (source !== undefined && message.role === source.role && (message.role === 'system' || message.role === 'user')) {
      const origin = converted.origins[next++]!;
      result.push(editedMessage(prompt[origin]!, source.content, message.content));
      lastOrigin = origin;
    } else {
      result.push(newMessage(message));
      lastOrigin = -1;
    }
  }
  while (next < converted.messages.length) keep(next++); // the core never drops messages; keep them if it ever did
  return result;
}

function editedMessage(original: PromptMessage, before: string, after: string): PromptMessage {
  if (original.role === 'system') return { ...original, content: after };
  if (original.role !== 'user') return original; // the core edits only system and user messages
  if (after.startsWith(before)) {
    const added = after.slice(before.length).replace(/^\s+/, '');
    return { ...original, content: [...original.content, { type: 'text', text: added }] };
  }
  return { ...original, content: [{ type: 'text', text: after }, ...original.content.filter((part) => part.type !== 'text')] };
}

/** The core inserts only system messages and user notes. */
function newMessage(message: ChatMessage): PromptMessage {
  return message.role === 'system' ? { role: 'system', content: message.content } : { role: 'user', content: [{ type: 'text', text: message.content }] };
}

/**
 * A model response as the core's assistant turn: its text and the tool calls it asked for, in order.
 * Provider-executed calls are included: they ran, and the workflow should know.
 * @example
 * toAssistantTurn([{ type: 'tool-call', toolCallId: 'c1', toolName: 'verify_identity', input: '{"orderId":"42"}' }])
 * // { content: '', toolCalls: [{ id: 'c1', name: 'verify_identity', args: { orderId: '42' } }] }
 */
export function toAssistantTurn(content: readonly ResponseContent[], availableTools?: readonly string[]): AssistantTurn {
  const texts: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const part of content) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'reasoning') reasoning.push(part.text);
    else if (part.type === 'tool-call') toolCalls.push(toCoreToolCall(part.toolCallId, part.toolName, part.input));
  }
  return {
    content: texts.join('\n'),
    toolCalls,
    ...(reasoning.length > 0 ? { reasoning: reasoning.join('\n') } : {}),
    ...(availableTools ? { availableTools } : {}),
  };
}

/**
 * A tool call in the core's form. Responses carry the input as a JSON string, prompts and tool executions as a
 * value; anything that is not a JSON object reads as no arguments (the workflow classifies calls by name).
 * @example
 * toCoreToolCall('c1', 'issue_refund', '{"orderId":"42"}') // { id: 'c1', name: 'issue_refund', args: { orderId: '42' } }
 */
export function toCoreToolCall(id: string | undefined, name: string, input: unknown): ToolCall {
  return { ...(id === undefined ? {} : { id }), name, args: argsOf(input) };
}

/**
 * Tool arguments as a plain object: parsed from JSON text when needed, `{}` for anything else.
 * @example
 * argsOf('{not json') // {}
 */
export function argsOf(input: unknown): Record<string, unknown> {
  let value = input;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
