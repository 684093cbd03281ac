/**
 * OpenAI chat-completions JSON to the core's messages and back, as pure functions: the proxy's server only calls
 * them, and tests drive them directly (the same split as `adapters/ai-sdk/translate.ts`).
 * @module
 */
import type { AssistantTurn, ChatMessage, ToolCall } from '../messages/index.js';
import type { ChatCompletionRequest, OpenAIMessage, OpenAIToolCall } from './openai-types.js';

/**
 * Why `body` is not a chat-completion request the proxy can monitor, or `undefined` when it is one: an object with
 * a non-empty `messages` array of objects that each have a string `role`.
 * @example
 * chatRequestProblem({ model: 'gpt-4o' }) // "'messages' is required: an array of chat messages"
 */
export function chatRequestProblem(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body must be a JSON object (a chat completion request)';
  const { messages } = body as { messages?: unknown };
  if (!Array.isArray(messages)) return "'messages' is required: an array of chat messages";
  if (messages.length === 0) return "'messages' is empty: a chat completion needs at least one message";
  const bad = messages.findIndex((message) => typeof message !== 'object' || message === null || typeof (message as { role?: unknown }).role !== 'string');
  if (bad !== -1) return `'messages[${bad}]' must be an object with a string 'role'`;
  return undefined;
}

/** The text of a message's content: a string as it is, the text parts of a parts array joined, else empty. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    if (typeof part !== 'object' || part === null) continue;
    const { type, text: partText } = part as { type?: unknown; text?: unknown };
    if (type === 'text' && typeof partText === 'string') text = text === '' ? partText : `${text}\n${partText}`;
  }
  return text;
}

/** A tool call's arguments as an object: its JSON when it parses to one, else empty (the monitor reads names, not arguments). */
export function argumentsOf(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string' || text === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** An OpenAI tool call as the core's; `undefined` for one without a function name. */
export function toolCallOf(call: OpenAIToolCall): ToolCall | undefined {
  const name = call?.function?.name;
  if (typeof name !== 'string' || name === '') return undefined;
  return { ...(typeof call.id === 'string' ? { id: call.id } : {}), name, args: argumentsOf(call.function?.arguments) };
}

function toolCallsOf(calls: unknown): ToolCall[] {
  if (!Array.isArray(calls)) return [];
  const result: ToolCall[] = [];
  for (const call of calls) {
    const converted = toolCallOf(call as OpenAIToolCall);
    if (converted) result.push(converted);
  }
  return result;
}

/**
 * The request's messages as the core's, one for one (so edits can be mapped back by position): `developer` reads as
 * `system`, the legacy `function` role as `tool`, and any other role as `user`.
 */
export function toChatMessages(messages: readonly OpenAIMessage[]): ChatMessage[] {
  return messages.map((message): ChatMessage => {
    const content = textOf(message.content);
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content };
      case 'assistant': {
        const toolCalls = toolCallsOf(message.tool_calls);
        return toolCalls.length > 0 ? { role: 'assistant', content, toolCalls } : { role: 'assistant', content };
      }
      case 'tool':
      case 'function':
        return {
          role: 'tool',
          content,
          ...(typeof message.tool_call_id === 'string' ? { toolCallId: message.tool_call_id } : {}),
          ...(typeof message.name === 'string' ? { name: message.name } : {}),
        };
      default:
        return { role: 'user', content };
    }
  });
}

/** A response message as the turn the monitor classifies. */
export function turnOf(message: OpenAIMessage | undefined): AssistantTurn {
  return { content: textOf(message?.content), toolCalls: toolCallsOf(message?.tool_calls) };
}

/**
 * What became of each of a request's messages once the monitor edited them (`edited`, made from `chat` by
 * `applyInterventions`), in order: kept as they were (`at`: the index in `chat`), given text at their end, or added.
 * Interventions only append text to a message (the system prompt, the last user message) or add messages, so this is
 * all an edit can be; each request format carries it over to its own shape.
 * @example
 * editsOf(chat, before.messages) // [{ kind: 'appended', at: 0, suffix: '\n\n[WORKFLOW GUIDANCE] ...' }, { kind: 'kept', at: 1 }]
 */
export function editsOf(chat: readonly ChatMessage[], edited: readonly ChatMessage[]): MessageEdit[] {
  const edits: MessageEdit[] = [];
  let next = 0; // the next message of `chat` not yet placed
  for (const message of edited) {
    if (next < chat.length && message === chat[next]) {
      edits.push({ kind: 'kept', at: next++ });
    } else if (next < chat.length && message.role === chat[next]!.role && message.content.startsWith(chat[next]!.content)) {
      edits.push({ kind: 'appended', at: next, suffix: message.content.slice(chat[next]!.content.length) });
      next++;
    } else {
      edits.push({ kind: 'added', message });
    }
  }
  for (; next < chat.length; next++) edits.push({ kind: 'kept', at: next });
  return edits;
}

/** One step of {@link editsOf}. */
export type MessageEdit = { kind: 'kept'; at: number } | { kind: 'appended'; at: number; suffix: string } | { kind: 'added'; message: ChatMessage };

/**
 * The request's OpenAI messages with the monitor's edits (`edited`, made from `chat` by `applyInterventions`) carried
 * over (see {@link editsOf}): an unedited message keeps its original JSON (images, names, cache hints and all), an
 * edited one gets the appended text (as a text part when its content is a parts array), and a new one is a plain
 * `{ role, content }`.
 * @example
 * withEdits(body.messages, chat, before.messages)
 */
export function withEdits(original: readonly OpenAIMessage[], chat: readonly ChatMessage[], edited: readonly ChatMessage[]): OpenAIMessage[] {
  const result = editsOf(chat, edited).map((edit): OpenAIMessage => {
    if (edit.kind === 'kept') return original[edit.at]!;
    if (edit.kind === 'appended') return appendText(original[edit.at]!, edit.suffix);
    return { role: edit.message.role, content: edit.message.content };
  });
  for (let next = chat.length; next < original.length; next++) result.push(original[next]!);
  return result;
}

function appendText(message: OpenAIMessage, suffix: string): OpenAIMessage {
  if (suffix === '') return message;
  if (Array.isArray(message.content)) return { ...message, content: [...message.content, { type: 'text', text: suffix.replace(/^\n+/, '') }] };
  return { ...message, content: `${typeof message.content === 'string' ? message.content : ''}${suffix}` };
}
