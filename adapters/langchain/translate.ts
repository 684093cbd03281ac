/**
 * LangChain messages <-> the core's neutral types. The only file of the LangChain adapters that knows both.
 *
 * Each neutral message keeps a link to the LangChain message it came from, under a symbol the core's object spreads
 * carry along, so a message the core left alone goes back as the very same object and an edited one keeps its id,
 * metadata and non-text content blocks.
 */
import {
  AIMessage,
  ChatMessage as LangChainChatMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
  type ContentBlock,
  type MessageContent,
} from '@langchain/core/messages';
import type { AssistantTurn, ChatMessage, ToolCall } from '../../src/index.js';

const HOST = Symbol('panoptes.langchain.message');

type Linked = ChatMessage & { [HOST]?: BaseMessage };

/** A tool call as LangChain writes it (`AIMessage.tool_calls`, `ToolCallRequest.toolCall`). */
export interface LangChainToolCall {
  id?: string | undefined;
  name: string;
  args?: unknown;
}

/**
 * The text of a message's content: the string itself, or its text blocks joined as LangChain's `message.text` joins
 * them. Images, files and reasoning blocks contribute nothing.
 * @example
 * textOf([{ type: 'text', text: 'Look: ' }, { type: 'image_url', image_url: 'https://x/y.png' }]) // 'Look: '
 */
export function textOf(content: MessageContent | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const block of content as unknown[]) {
    if (typeof block === 'string') text += block;
    else if (isTextBlock(block)) text += block.text;
  }
  return text;
}

/**
 * A LangChain tool call in the core's form. Arguments that are not a plain object (a provider's malformed JSON
 * left as a string) become `{}`, so the core classifies the call by its name and never crashes on its arguments.
 * @example
 * toToolCall({ id: 'c1', name: 'issue_refund', args: { order: 'A1' } }) // { id: 'c1', name: 'issue_refund', args: { order: 'A1' } }
 */
export function toToolCall(call: LangChainToolCall): ToolCall {
  const args = typeof call.args === 'object' && call.args !== null && !Array.isArray(call.args) ? (call.args as Record<string, unknown>) : {};
  return call.id ? { id: call.id, name: call.name, args } : { name: call.name, args };
}

/**
 * One LangChain message in the core's form. System and developer messages become `system`, human `user`, AI
 * `assistant` (with its tool calls), tool and legacy function messages `tool` (`status: 'error'` as `isError`);
 * a generic `ChatMessage` maps by its role. Array content keeps every block in `parts`.
 * @example
 * toChatMessage(new HumanMessage('Refund my order.')) // { role: 'user', content: 'Refund my order.' }
 */
export function toChatMessage(message: BaseMessage): ChatMessage {
  const neutral = linkedMessage(message, textOf(message.content));
  if (Array.isArray(message.content)) neutral.parts = message.content as readonly unknown[];
  return neutral;
}

/** The neutral message with its link, built as one literal per role: this runs on every message of every model call. */
function linkedMessage(message: BaseMessage, content: string): Linked {
  switch (roleOf(message)) {
    case 'assistant': {
      const calls = (message as AIMessage).tool_calls;
      return calls && calls.length > 0 ? { role: 'assistant', content, toolCalls: calls.map(toToolCall), [HOST]: message } : { role: 'assistant', content, [HOST]: message };
    }
    case 'tool': {
      const tool = message as ToolMessage;
      const neutral: Linked = { role: 'tool', content, [HOST]: message };
      if (typeof tool.tool_call_id === 'string') neutral.toolCallId = tool.tool_call_id;
      if (message.name) neutral.name = message.name;
      if (tool.status === 'error') neutral.isError = true;
      return neutral;
    }
    case 'system':
      return { role: 'system', content, [HOST]: message };
    default:
      return { role: 'user', content, [HOST]: message };
  }
}

/**
 * Converts a conversation, dropping LangChain's `RemoveMessage` markers (they edit state; no model reads them).
 * @example
 * toChatMessages([new SystemMessage('Be brief.'), new HumanMessage('Hi')]).map((message) => message.role) // ['system', 'user']
 */
export function toChatMessages(messages: readonly BaseMessage[]): ChatMessage[] {
  const neutral: ChatMessage[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.getType() !== 'remove') neutral.push(toChatMessage(message));
  }
  return neutral;
}

/**
 * Back to LangChain: the original message when the core left it alone, a copy with the new text when the core
 * appended to it (a text block added after the original blocks, so images and cache markers stay), or a new message
 * for one the core added.
 * @example
 * const [system] = toChatMessages([new SystemMessage('Be brief.')]);
 * fromChatMessage({ ...system!, content: 'Be brief.\n\nVerify first.' }) // SystemMessage 'Be brief.\n\nVerify first.'
 */
export function fromChatMessage(message: ChatMessage): BaseMessage {
  const host = hostOf(message);
  if (host) {
    const original = textOf(host.content);
    if (original === message.content) return host;
    return withContent(host, editedContent(host.content, original, message.content));
  }
  const content = message.parts ? editedContent(message.parts as ContentBlock[], textOf(message.parts as ContentBlock[]), message.content) : message.content;
  switch (message.role) {
    case 'system':
      return new SystemMessage({ content });
    case 'user':
      return new HumanMessage({ content });
    case 'assistant':
      return new AIMessage({ content, tool_calls: (message.toolCalls ?? []).map((call) => ({ ...call, type: 'tool_call' as const })) });
    case 'tool':
      return new ToolMessage({ content, tool_call_id: message.toolCallId ?? '', ...(message.name ? { name: message.name } : {}), status: message.isError ? 'error' : 'success' });
  }
}

/**
 * The LangChain message a neutral one was made from, if any; `undefined` for a message the core created.
 * @example
 * const human = new HumanMessage('Hi');
 * hostOf(toChatMessage(human)) === human // true
 */
export function hostOf(message: ChatMessage): BaseMessage | undefined {
  return (message as Linked)[HOST];
}

/**
 * {@link fromChatMessage} for a whole conversation.
 * @example
 * const messages = [new SystemMessage('Be brief.'), new HumanMessage('Hi')];
 * fromChatMessages(toChatMessages(messages))[1] === messages[1] // true: untouched messages come back as they were
 */
export function fromChatMessages(messages: readonly ChatMessage[]): BaseMessage[] {
  return messages.map(fromChatMessage);
}

/**
 * A model response in the core's form: its text and its tool calls, in order.
 * @example
 * toAssistantTurn(new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'lookup', args: {} }] })) // { content: '', toolCalls: [{ id: 'c1', name: 'lookup', args: {} }] }
 */
export function toAssistantTurn(message: BaseMessage, availableTools?: readonly string[]): AssistantTurn {
  const reasoning = reasoningOf(message.content);
  return {
    content: textOf(message.content),
    toolCalls: ((message as AIMessage).tool_calls ?? []).map(toToolCall),
    ...(reasoning === '' ? {} : { reasoning }),
    ...(availableTools ? { availableTools } : {}),
  };
}

/**
 * The reasoning a response's content blocks carry: LangChain's standard `reasoning` blocks and Anthropic's
 * `thinking` blocks. Read by the loop detector's `repeated-line` check only.
 */
function reasoningOf(content: MessageContent | undefined): string {
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content as unknown[]) {
    if (typeof block !== 'object' || block === null) continue;
    const { type, reasoning, thinking } = block as { type?: unknown; reasoning?: unknown; thinking?: unknown };
    if (type === 'reasoning' && typeof reasoning === 'string') parts.push(reasoning);
    else if (type === 'thinking' && typeof thinking === 'string') parts.push(thinking);
  }
  return parts.join('\n');
}

function roleOf(message: BaseMessage): ChatMessage['role'] {
  const type = message.getType();
  if (type === 'generic') {
    const role = (message as LangChainChatMessage).role;
    if (role === 'assistant' || role === 'ai') return 'assistant';
    if (role === 'system' || role === 'developer') return 'system';
    if (role === 'tool' || role === 'function') return 'tool';
    return 'user';
  }
  if (type === 'ai') return 'assistant';
  if (type === 'system' || type === 'developer') return 'system';
  if (type === 'tool' || type === 'function') return 'tool';
  return 'user';
}

/**
 * The core only ever appends to a message's text. String content takes the new text as is; block content keeps its
 * blocks and gains one text block with what was appended (or, when the text was rewritten, keeps its non-text
 * blocks and takes the new text as one block).
 */
function editedContent(content: MessageContent, original: string, edited: string): MessageContent {
  if (typeof content === 'string') return edited;
  if (edited.startsWith(original)) return [...content, { type: 'text', text: edited.slice(original.length) }];
  return [...content.filter((block) => !isTextBlock(block)), { type: 'text', text: edited }];
}

function withContent(message: BaseMessage, content: MessageContent): BaseMessage {
  const fields = { content, additional_kwargs: message.additional_kwargs, response_metadata: message.response_metadata, id: message.id, name: message.name };
  switch (message.getType()) {
    case 'system':
      return new SystemMessage(fields);
    case 'human':
      return new HumanMessage(fields);
    default: {
      // Other kinds are never edited by the core's interventions today; copy through the constructor they came from.
      const Kind = message.constructor as new (fields: Record<string, unknown>) => BaseMessage;
      return new Kind({ ...message.lc_kwargs, ...fields });
    }
  }
}

function isTextBlock(block: unknown): block is { type: 'text'; text: string } {
  return typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text' && typeof (block as { text?: unknown }).text === 'string';
}
