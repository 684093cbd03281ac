import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { WithheldResponse } from '../../src/index.js';

/** Where a failed second model call (`onViolatingText: 'regenerate'`) is logged: the first answer is replaced then. */
export const REGENERATING = 'the model call regenerating a withheld answer';

/** What a withheld answer's replacement records of it: never its text. */
export interface WithheldRecord {
  state: string;
  constraints: string[];
}

/**
 * The AI message that stands in for an answer withheld before delivery: the workflow's user message, no tool calls.
 * It keeps the answer's id, so a client that streamed the answer's tokens (`streamMode: 'messages'`) replaces them
 * by id when the final state arrives, and its token usage. The withholding rides in `response_metadata`, which
 * providers never receive.
 * @example
 * withheldMessage(answer, { state: 'share_internal_info', constraints: ['no_internal_info'], userMessage: 'Sorry...', reason: '...' })
 */
export function withheldMessage(answer: BaseMessage, withheld: WithheldResponse): AIMessage {
  const usage = AIMessage.isInstance(answer) ? answer.usage_metadata : undefined;
  const record: WithheldRecord = { state: withheld.state, constraints: withheld.constraints };
  return new AIMessage({
    content: withheld.userMessage,
    ...(answer.id === undefined ? {} : { id: answer.id }),
    ...(usage === undefined ? {} : { usage_metadata: usage }),
    response_metadata: { panoptes: { withheld: record } },
  });
}

/** The withholding a message records, if it is one {@link withheldMessage} made. */
export function withheldOf(message: BaseMessage | undefined): WithheldRecord | undefined {
  return (message?.response_metadata as { panoptes?: { withheld?: WithheldRecord } } | undefined)?.panoptes?.withheld;
}

/** What a response the judge withheld records of it: the rubrics that did not pass, never its text. */
export interface JudgedWithheldRecord {
  rubrics: string[];
  decision: 'deny' | 'ask';
}

/**
 * The AI message that stands in for an answer the judge did not pass (`turn` rubrics): `userMessage`, no tool
 * calls, the answer's id and token usage kept; the rubrics ride in `response_metadata.panoptes.judged`.
 */
export function judgedWithheldMessage(answer: BaseMessage, rubrics: readonly string[], decision: 'deny' | 'ask', userMessage: string): AIMessage {
  const usage = AIMessage.isInstance(answer) ? answer.usage_metadata : undefined;
  const record: JudgedWithheldRecord = { rubrics: [...rubrics], decision };
  return new AIMessage({
    content: userMessage,
    ...(answer.id === undefined ? {} : { id: answer.id }),
    ...(usage === undefined ? {} : { usage_metadata: usage }),
    response_metadata: { panoptes: { judged: record } },
  });
}
