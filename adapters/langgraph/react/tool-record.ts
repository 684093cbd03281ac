import type { BaseMessage } from '@langchain/core/messages';

/** What Panoptes records on a tool message it made or timed, in `response_metadata.panoptes`. */
export interface ToolCallRecord {
  /** How long the tool ran, in milliseconds (0 for a cached answer). */
  durationMs: number;
  /** The answer is an earlier identical call's, replayed: the tool did not run. */
  cached?: boolean;
  /** The call was `finish` with arguments the schema rejects. */
  invalidFinish?: boolean;
  /** The model sent arguments that are not JSON. */
  malformed?: boolean;
}

/** The record Panoptes keeps on a tool message, if any. */
export function toolCallRecord(message: BaseMessage): ToolCallRecord | undefined {
  return (message.response_metadata as { panoptes?: ToolCallRecord } | undefined)?.panoptes;
}
