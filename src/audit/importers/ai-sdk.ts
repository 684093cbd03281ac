import { isRecord } from '../messages.js';

/**
 * Whether a message list is the AI SDK's `ModelMessage[]` rather than OpenAI's: some part is a `tool-call` or a
 * `tool-result`, or a tool message holds a list of parts. Text-only AI SDK messages read the same in both formats.
 */
export function isAiSdkMessages(messages: readonly unknown[]): boolean {
  return messages.some(
    (message) => isRecord(message) && Array.isArray(message.content) && message.content.some((part) => isRecord(part) && (part.type === 'tool-call' || part.type === 'tool-result')),
  );
}

/** AI SDK `ModelMessage[]` as OpenAI chat messages: tool-call parts become `tool_calls`, each tool-result a tool message. */
export function fromAiSdkMessages(messages: readonly unknown[]): unknown[] {
  return messages.flatMap((message): unknown[] => {
    if (!isRecord(message) || !Array.isArray(message.content)) return [message];
    const parts = message.content.filter(isRecord);
    if (message.role === 'tool') {
      return parts
        .filter((part) => part.type === 'tool-result')
        .map((part) => ({ role: 'tool', tool_call_id: part.toolCallId, ...(typeof part.toolName === 'string' ? { name: part.toolName } : {}), content: resultText(part.output) }));
    }
    const text = parts.filter((part) => part.type === 'text' && typeof part.text === 'string').map((part) => part.text as string).join('\n');
    const calls = parts
      .filter((part) => part.type === 'tool-call')
      .map((part) => ({ id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: JSON.stringify(part.input ?? {}) } }));
    return [{ role: message.role, content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
  });
}

/** A tool result's output (`{ type: 'json' | 'text' | 'error-text' ..., value }` in AI SDK 5 and 6) as text. */
function resultText(output: unknown): string {
  const value = isRecord(output) && 'value' in output ? output.value : output;
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}
