import type { ChatMessage, ToolCall } from '../messages/index.js';
import type { TranscriptWarning } from './types.js';

/**
 * Roles a transcript message may have. `developer` is OpenAI's newer name for `system` and is read as one; the
 * deprecated `function` role is not accepted because its results cannot be tied to a call.
 */
export const TRANSCRIPT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;

/** The messages of one session in the core's form, with what could not be read. */
export interface ConvertedMessages {
  messages: ChatMessage[];
  warnings: TranscriptWarning[];
  /** Each makes the session unauditable: `messages[3]: unknown role 'bot'; ...`. */
  errors: string[];
}

/** Past this many, a broken session's errors are summarised: one is enough to fix, a thousand drown the rest. */
const MAX_ERRORS_PER_SESSION = 5;

/**
 * Converts OpenAI chat messages to `ChatMessage`s. Every message is checked; an unknown role or a wrongly typed
 * field is an error (the session cannot be replayed faithfully), while tool-call arguments that are not JSON are a
 * warning (classification reads only the tool's name, so the session is still audited, with empty arguments).
 */
export function convertMessages(raw: readonly unknown[]): ConvertedMessages {
  const messages: ChatMessage[] = [];
  const warnings: TranscriptWarning[] = [];
  const errors: string[] = [];
  let errorCount = 0;
  raw.forEach((value, index) => {
    const converted = convertMessage(value, index, (text) => warnings.push({ message: index, text }));
    if (typeof converted === 'string') {
      errorCount += 1;
      if (errorCount <= MAX_ERRORS_PER_SESSION) errors.push(converted);
    } else {
      messages.push(converted);
    }
  });
  if (errorCount > MAX_ERRORS_PER_SESSION) errors.push(`... and ${errorCount - MAX_ERRORS_PER_SESSION} more messages with errors`);
  return { messages, warnings, errors };
}

/** One message, or the error text that says what is wrong with it. */
function convertMessage(value: unknown, index: number, warn: (text: string) => void): ChatMessage | string {
  const where = `messages[${index}]`;
  if (!isRecord(value)) return `${where}: expected a message object, got ${describe(value)}`;
  const role = value.role;
  if (role === undefined) {
    const hint = Array.isArray(value.messages) ? '; this looks like a whole session: put one { "id", "messages" } per line in a .jsonl file' : '';
    return `${where}: missing role; valid roles: ${TRANSCRIPT_ROLES.join(', ')}${hint}`;
  }
  if (typeof role !== 'string') return `${where}.role: expected a string, got ${describe(role)}; valid roles: ${TRANSCRIPT_ROLES.join(', ')}`;
  if (!(TRANSCRIPT_ROLES as readonly string[]).includes(role)) return `${where}: unknown role '${role}'; valid roles: ${TRANSCRIPT_ROLES.join(', ')}`;
  const content = readContent(value.content);
  if (content === undefined) return `${where}.content: expected a string, null or an array of content parts, got ${describe(value.content)}`;
  const parts = content.parts.length > 0 ? { parts: content.parts } : {};
  switch (role as (typeof TRANSCRIPT_ROLES)[number]) {
    case 'system':
    case 'developer':
      return { role: 'system', content: content.text, ...parts };
    case 'user':
      return { role: 'user', content: content.text, ...parts };
    case 'tool':
      return {
        role: 'tool',
        content: content.text,
        ...(typeof value.tool_call_id === 'string' ? { toolCallId: value.tool_call_id } : {}),
        ...(typeof value.name === 'string' ? { name: value.name } : {}),
        ...parts,
      };
    case 'assistant': {
      const toolCalls = readToolCalls(value.tool_calls, where, warn);
      if (typeof toolCalls === 'string') return toolCalls;
      return { role: 'assistant', content: content.text, ...(toolCalls.length > 0 ? { toolCalls } : {}), ...parts };
    }
  }
}

/**
 * The text of a message: the string itself, or its `text` parts joined by newlines (images, audio and refusals are
 * carried in `parts` and ignored). `null` (an assistant message that only calls tools) is no text.
 */
function readContent(content: unknown): { text: string; parts: unknown[] } | undefined {
  if (content === undefined || content === null) return { text: '', parts: [] };
  if (typeof content === 'string') return { text: content, parts: [] };
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  const others: unknown[] = [];
  for (const part of content) {
    if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    else others.push(part);
  }
  return { text: texts.join('\n'), parts: others };
}

function readToolCalls(value: unknown, where: string, warn: (text: string) => void): ToolCall[] | string {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return `${where}.tool_calls: expected an array, got ${describe(value)}`;
  const calls: ToolCall[] = [];
  for (const [position, call] of value.entries()) {
    const at = `${where}.tool_calls[${position}]`;
    if (!isRecord(call)) return `${at}: expected a tool call object, got ${describe(call)}`;
    if (call.type !== undefined && call.type !== 'function') {
      warn(`${at}: tool call type '${String(call.type)}' is not 'function'; ignored`);
      continue;
    }
    const fn = call.function;
    if (!isRecord(fn) || typeof fn.name !== 'string' || fn.name === '') return `${at}: missing function.name`;
    const id = typeof call.id === 'string' ? { id: call.id } : {};
    calls.push({ ...id, name: fn.name, args: readArguments(fn.arguments, `${at} (${fn.name})`, warn) });
  }
  return calls;
}

/** OpenAI sends arguments as a JSON string; some exports store the parsed object. Anything unreadable becomes `{}`. */
function readArguments(value: unknown, at: string, warn: (text: string) => void): Record<string, unknown> {
  if (value === undefined || value === null || value === '') return {};
  if (isRecord(value)) return value;
  if (typeof value !== 'string') {
    warn(`${at}: arguments are ${describe(value)}, not a JSON string; audited with empty arguments`);
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    warn(`${at}: arguments are not valid JSON (${jsonErrorText(error)}); audited with empty arguments`);
    return {};
  }
  if (isRecord(parsed)) return parsed;
  warn(`${at}: arguments are ${describe(parsed)}, not a JSON object; audited with empty arguments`);
  return {};
}

/** Plain objects only: arrays and null are not. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `a string`, `an array`, `null`: what a value is, for error messages. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** V8 quotes the input in JSON errors; a 10 MB argument string must not become a 10 MB report line. */
export function jsonErrorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}
