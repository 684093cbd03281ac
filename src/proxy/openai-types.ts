/**
 * The parts of the OpenAI chat-completions wire format the proxy reads and writes. Every other field of a request,
 * response or chunk is carried through untouched, so these types are open (`[key: string]: unknown`).
 * @module
 */

/** A tool call in a request's assistant message or a response message. */
export interface OpenAIToolCall {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
  [key: string]: unknown;
}

/** One message of a request, or a response's message. `content` may be text, an array of parts, or null. */
export interface OpenAIMessage {
  role: string;
  content?: unknown;
  tool_calls?: OpenAIToolCall[];
  tool_call_id?: string;
  name?: string;
  [key: string]: unknown;
}

/** A `POST /v1/chat/completions` body, as far as the proxy reads it. */
export interface ChatCompletionRequest {
  model?: unknown;
  messages: OpenAIMessage[];
  stream?: unknown;
  n?: unknown;
  user?: unknown;
  metadata?: unknown;
  thread_id?: unknown;
  [key: string]: unknown;
}

/** A non-streamed response. */
export interface ChatCompletion {
  choices?: Array<{ index?: number; message?: OpenAIMessage; finish_reason?: string | null; [key: string]: unknown }>;
  [key: string]: unknown;
}

/** A tool call's delta in a streamed chunk: `index` says which call the pieces belong to. */
export interface OpenAIToolCallDelta {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
  [key: string]: unknown;
}

/** One streamed chunk (`data:` of a server-sent event). */
export interface ChatCompletionChunk {
  choices?: Array<{
    index?: number;
    delta?: { role?: string; content?: string | null; tool_calls?: OpenAIToolCallDelta[]; [key: string]: unknown };
    finish_reason?: string | null;
    [key: string]: unknown;
  }>;
  [key: string]: unknown;
}
