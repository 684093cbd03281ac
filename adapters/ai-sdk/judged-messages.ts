/**
 * The conversation a tool's execution options carry (`options.messages`, AI SDK `ModelMessage`s) as the core's chat
 * messages, for the judge: the user's requests, the assistant's text and calls, the tools' results as text.
 * @module
 */
import type { ModelMessage } from 'ai';
import type { ChatMessage } from '../../src/index.js';
import { toCoreToolCall } from './translate.js';

type ToolMessagePart = Extract<ModelMessage, { role: 'tool' }>['content'][number];
type ToolResultPart = Extract<ToolMessagePart, { type: 'tool-result' }>;

/**
 * `ModelMessage`s as chat messages. Files, images and reasoning are left out (the judge reads text); a tool message
 * gives one message per result.
 * @example
 * chatMessagesOf([{ role: 'user', content: 'Mail bob@example.com' }]) // [{ role: 'user', content: 'Mail bob@example.com' }]
 */
export function chatMessagesOf(messages: readonly ModelMessage[] | undefined): ChatMessage[] {
  return (messages ?? []).flatMap((message): ChatMessage[] => {
    switch (message.role) {
      case 'system':
        return [{ role: 'system', content: message.content }];
      case 'user':
        return [{ role: 'user', content: typeof message.content === 'string' ? message.content : message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n') }];
      case 'assistant': {
        if (typeof message.content === 'string') return [{ role: 'assistant', content: message.content }];
        const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
        const toolCalls = message.content.flatMap((part) => (part.type === 'tool-call' ? [toCoreToolCall(part.toolCallId, part.toolName, part.input)] : []));
        return [{ role: 'assistant', content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}) }];
      }
      case 'tool':
        return message.content.flatMap((part): ChatMessage[] =>
          part.type === 'tool-result' ? [{ role: 'tool', content: outputText(part.output), toolCallId: part.toolCallId, name: part.toolName }] : [],
        );
      default:
        return [];
    }
  });
}

function outputText(output: ToolResultPart['output']): string {
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
    default:
      return '';
  }
}
