/**
 * Transcript formats besides OpenAI chat messages, detected by shape and converted to OpenAI
 * messages, which `convertMessages` then checks as it checks any transcript.
 * @module
 */
import { fromAiSdkMessages, isAiSdkMessages } from './ai-sdk.js';
import { fromLangChainMessages, isLangChainMessages } from './langchain.js';

export { fromAiSdkMessages, isAiSdkMessages } from './ai-sdk.js';
export { fromLangChainMessages, isLangChainMessages, isRun, runConversation } from './langchain.js';
export { fromOtelExport, isOtelExport } from './otel.js';

/** The formats a transcript may be in, for error messages. */
export const ACCEPTED_FORMATS =
  'accepted: OpenAI chat messages (a JSON array, or { "messages": [...] }), AI SDK ModelMessage[], LangChain messages or LangChain/LangSmith run exports ({ "inputs", "outputs" }), OpenTelemetry GenAI traces (OTLP JSON with gen_ai.input.messages / gen_ai.output.messages)';

/** A message list in any supported message format, as OpenAI chat messages. */
export function toOpenAiMessages(messages: readonly unknown[]): unknown[] {
  if (isLangChainMessages(messages)) return fromLangChainMessages(messages);
  if (isAiSdkMessages(messages)) return fromAiSdkMessages(messages);
  return [...messages];
}
