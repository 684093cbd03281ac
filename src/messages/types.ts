/** A tool call as the core sees it, whatever the host. */
export interface ToolCall {
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

/**
 * A chat message in the core's neutral form. Adapters convert host messages to and from it; non-text content
 * (images, files) travels in `parts` untouched and is ignored by classification.
 */
export type ChatMessage =
  | { role: 'system' | 'user'; content: string; parts?: readonly unknown[] }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[]; parts?: readonly unknown[] }
  | { role: 'tool'; content: string; toolCallId?: string; name?: string; isError?: boolean; parts?: readonly unknown[] };

/** One model response: its text and the tool calls it asked for, in order. */
export interface AssistantTurn {
  content: string;
  toolCalls: ToolCall[];
  /** The model's reasoning, when the host exposes it: the loop detector's `repeated-line` check reads it. */
  reasoning?: string;
  /**
   * The names of the tools offered on this call, when the host knows them: a call to any other name counts towards
   * the loop detector's `unknown-tool` check.
   */
  availableTools?: readonly string[];
}
