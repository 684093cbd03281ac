/**
 * The items of the OpenAI Responses API, as the proxy reads them: which output items are calls the client runs (and
 * as what tool), which carry none, and how a list of items (a request's `input`, a response's `output`) reads as the
 * core's messages. One reading for both, so an answer recorded as delivered is found again when the next request
 * carries it back. Item shapes follow the `openai` package's `resources/responses` types.
 * @module
 */
import type { AssistantTurn, ChatMessage, ToolCall } from '../../../messages/index.js';
import { record, type FoundCall } from '../../answer-calls.js';
import { refusalText, type RefusedToolCall } from '../../enforce.js';
import { argumentsOf } from '../../translate.js';
import type { ItemSource } from '../item-edits.js';

/** A call found in an output item: its item's type and position go with it, to write the item again. */
export interface ResponseCall extends FoundCall {
  itemType: string;
  outputIndex: number;
}

/**
 * Output items that carry no call the client runs: text, reasoning, and the tools the provider runs itself (their
 * results are in the answer already; the proxy cannot stop them, and withholding them stops nothing). Outputs of
 * calls (`*_output`) are results, not calls.
 */
const NOT_CALLS = new Set([
  'message',
  'reasoning',
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_response',
  'compaction',
  'additional_tools',
  'item_reference',
]);

/** Built-in tools the client runs, by the type of their call item: the tool's name as the workflow knows it. */
const BUILT_IN_CALLS: Record<string, string> = {
  computer_call: 'computer',
  local_shell_call: 'local_shell',
  shell_call: 'shell',
  apply_patch_call: 'apply_patch',
};

/** The names built-in tools are offered by, by the tool's `type` (see {@link BUILT_IN_CALLS}). */
const BUILT_IN_TOOLS: Record<string, string> = {
  computer: 'computer',
  computer_use_preview: 'computer',
  local_shell: 'local_shell',
  shell: 'shell',
  apply_patch: 'apply_patch',
  tool_search: 'tool_search',
};

/** Whether an item of this type carries no call the client runs. */
function isNotCall(item: Record<string, unknown>): boolean {
  const type = item.type;
  if (typeof type !== 'string') return typeof item.role === 'string'; // an input message written without its type
  if (type === 'tool_search_call') return item.execution !== 'client';
  return NOT_CALLS.has(type) || type.endsWith('_output');
}

/**
 * The call an output item carries, or `undefined` for an item that carries none (text, reasoning, a tool the provider
 * ran). Function and custom tools by their name (with their namespace, `namespace.name`, when they have one), the
 * built-in tools the client runs by the tool's name (`computer`, `shell`, ...) with the rest of the item as arguments,
 * an MCP approval request by the MCP tool's name. An item of a type the proxy does not know is a call it cannot read.
 */
export function callOfItem(value: unknown, outputIndex: number): ResponseCall | undefined {
  const item = record(value);
  if (!item) return { choice: 0, name: undefined, arguments: undefined, itemType: 'unknown', outputIndex, unreadable: 'an output item that is not an object could not be read' };
  if (isNotCall(item)) return undefined;
  const type = String(item.type);
  const id = typeof item.call_id === 'string' ? { id: item.call_id } : typeof item.id === 'string' && type === 'mcp_approval_request' ? { id: item.id } : {};
  const base = { choice: 0, itemType: type, outputIndex, ...id };
  switch (type) {
    case 'function_call':
      return { ...base, name: qualifiedName(item), arguments: item.arguments };
    case 'custom_tool_call':
      return { ...base, name: qualifiedName(item), arguments: item.input, custom: true };
    case 'mcp_approval_request':
      return { ...base, name: item.name, arguments: item.arguments };
    case 'tool_search_call':
      return { ...base, name: 'tool_search', arguments: builtInArguments(item) };
  }
  const tool = BUILT_IN_CALLS[type];
  if (tool) return { ...base, name: tool, arguments: builtInArguments(item) };
  return { ...base, name: type, arguments: undefined, unreadable: `it is an output item of type '${type}', which the proxy cannot check` };
}

/** A function or custom tool's name with its namespace, when it has one: the name the client looks it up by. */
function qualifiedName(item: Record<string, unknown>): unknown {
  const { name, namespace } = item;
  return typeof namespace === 'string' && namespace !== '' && typeof name === 'string' ? `${namespace}.${name}` : name;
}

/** A built-in call's arguments: the item without its type, ids and status, as JSON text. */
function builtInArguments(item: Record<string, unknown>): string {
  const { type: _type, id: _id, call_id: _callId, status: _status, ...rest } = item;
  return JSON.stringify(rest);
}

/**
 * The tool names a Responses request offers: function and custom tools by `name`, a namespace's tools as
 * `namespace.name`, the built-in tools the client runs by their name (`computer`, `shell`, ...), MCP tools by their
 * `allowed_tools`. `undefined` (no check) when it lists no tools, or offers an MCP server without a list of its tools,
 * whose names the proxy cannot know.
 */
export function offeredResponseNames(tools: unknown, input: unknown): ReadonlySet<string> | undefined {
  // Tools a tool search made available arrive as `additional_tools` items in the conversation.
  const added = Array.isArray(input) ? input.flatMap((item) => (record(item)?.type === 'additional_tools' && Array.isArray(record(item)!.tools) ? (record(item)!.tools as unknown[]) : [])) : [];
  if (!Array.isArray(tools) && added.length === 0) return undefined;
  const names = new Set<string>();
  for (const value of [...(Array.isArray(tools) ? tools : []), ...added]) {
    const tool = record(value);
    const type = tool?.type;
    if (typeof type === 'string' && BUILT_IN_TOOLS[type]) names.add(BUILT_IN_TOOLS[type]);
    else if (type === 'mcp') {
      const allowed = tool!.allowed_tools;
      const list = Array.isArray(allowed) ? allowed : record(allowed)?.tool_names;
      if (!Array.isArray(list)) return undefined;
      for (const name of list) if (typeof name === 'string') names.add(name);
    } else if (type === 'namespace' && typeof tool!.name === 'string' && Array.isArray(tool!.tools)) {
      for (const inner of tool!.tools) if (typeof record(inner)?.name === 'string') names.add(`${tool!.name}.${record(inner)!.name as string}`);
    } else if (typeof tool?.name === 'string') names.add(tool.name);
  }
  return names;
}

/** The text of a message's content: a string as it is, else its text parts (`input_text`, `output_text`, `text`) joined. */
export function itemText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    const entry = record(part);
    if ((entry?.type === 'input_text' || entry?.type === 'output_text' || entry?.type === 'text') && typeof entry.text === 'string') texts.push(entry.text);
  }
  return texts.join('\n');
}

/** A list of items read as the core's messages, with the item each message was read from (see item-edits.ts). */
export interface ItemMessages {
  messages: ChatMessage[];
  sources: ItemSource[];
}

/**
 * Items (a request's input, a response's output) as the core's messages, in order: messages by their role
 * (`developer` and `system` as system), the assistant's messages and calls one after another as one assistant turn,
 * outputs of calls as tool messages; reasoning and the rest are not part of the conversation's text.
 */
export function itemMessages(items: readonly unknown[]): ItemMessages {
  const messages: ChatMessage[] = [];
  const sources: ItemSource[] = [];
  const assistant = (at: number, content: string, call?: ToolCall) => {
    const last = messages.at(-1);
    if (last?.role === 'assistant') {
      const merged: ChatMessage = { role: 'assistant', content: [last.content, content].filter((text) => text !== '').join('\n\n'), toolCalls: [...(last.toolCalls ?? []), ...(call ? [call] : [])] };
      messages[messages.length - 1] = merged;
      sources[sources.length - 1] = at;
      return;
    }
    messages.push({ role: 'assistant', content, toolCalls: call ? [call] : [] });
    sources.push(at);
  };
  items.forEach((value, at) => {
    const item = record(value);
    if (!item) return;
    const type = item.type;
    if ((type === 'message' || type === undefined) && typeof item.role === 'string') {
      const content = itemText(item.content);
      if (item.role === 'assistant') return assistant(at, content);
      messages.push({ role: item.role === 'system' || item.role === 'developer' ? 'system' : 'user', content });
      sources.push(at);
      return;
    }
    if (typeof type === 'string' && type.endsWith('_output') && typeof item.call_id === 'string') {
      messages.push({ role: 'tool', content: itemText(item.output), toolCallId: item.call_id });
      sources.push(at);
      return;
    }
    const call = callOfItem(item, at);
    if (call && typeof call.name === 'string') assistant(at, '', { ...(call.id === undefined ? {} : { id: call.id }), name: call.name, args: argumentsOf(call.arguments) });
  });
  // A turn without calls reads as text alone, as the chat route records it.
  return { messages: messages.map((message) => (message.role === 'assistant' && message.toolCalls?.length === 0 ? { role: 'assistant', content: message.content } : message)), sources };
}

/** A response's output as one assistant turn: what the monitor classifies, and what placement records. */
export function outputTurn(output: readonly unknown[]): AssistantTurn {
  const turn: AssistantTurn = { content: '', toolCalls: [] };
  for (const message of itemMessages(output).messages) {
    if (message.role !== 'assistant') continue;
    turn.content = [turn.content, message.content].filter((text) => text !== '').join('\n\n');
    turn.toolCalls.push(...(message.toolCalls ?? []));
  }
  return turn;
}

/**
 * The message item that takes a refused call's place in the output, at the same position: the refusal's text, which
 * the client (and its model, next turn) reads instead of the call.
 */
export function refusalItem(call: ResponseCall, refusal: RefusedToolCall): Record<string, unknown> {
  return {
    id: `msg_panoptes_${call.outputIndex}`,
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: refusalText([refusal]), annotations: [] }],
  };
}

/** The message item of a withheld response: the text the user gets instead (`id` given when it goes beside others). */
export function withheldItem(text: string, id = 'msg_panoptes_withheld'): Record<string, unknown> {
  return { id, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
}

/** `output` with each refused call's item replaced by its {@link refusalItem}. */
export function withRefusalItems(output: readonly unknown[], calls: readonly ResponseCall[], refused: ReadonlyMap<FoundCall, RefusedToolCall>): unknown[] {
  const result = [...output];
  for (const call of calls) {
    const refusal = refused.get(call);
    if (refusal && call.outputIndex < result.length) result[call.outputIndex] = refusalItem(call, refusal);
  }
  return result;
}
