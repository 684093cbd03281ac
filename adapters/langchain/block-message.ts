import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { RenderedIntervention } from '../../src/index.js';

/** What a hard block records on the AI message that stands in for the refused model call. */
export interface BlockRecord {
  intervention: string;
  /** The intervention's text, written for the model. */
  text: string;
  sessionId: string;
}

/** Renders the message a blocked run ends with, from the blocking intervention and its session. */
export type BlockMessage = (block: RenderedIntervention & { sessionId: string }) => string;

/**
 * The default text of the AI message a blocked run ends with.
 * @example
 * panoptesMiddleware({ monitor, blockMessage: (block) => `Sorry, I cannot continue. (${defaultBlockMessage(block)})` });
 */
export const defaultBlockMessage: BlockMessage = ({ text }) => `[Panoptes] This run was stopped: ${text}`;

/**
 * The AI message a blocked model call returns instead of calling the model. The block rides in `response_metadata`,
 * which providers never receive, so the `afterModel` hook can recognise it and end the run (or throw).
 */
export function blockedResponse(block: RenderedIntervention, sessionId: string, render: BlockMessage): AIMessage {
  const record: BlockRecord = { intervention: block.name, text: block.text, sessionId };
  return new AIMessage({ content: render({ ...block, sessionId }), response_metadata: { panoptes: { block: record } } });
}

/** The block a message stands for, if it is one {@link blockedResponse} made. */
export function blockOf(message: BaseMessage | undefined): BlockRecord | undefined {
  const panoptes = (message?.response_metadata as { panoptes?: { block?: BlockRecord } } | undefined)?.panoptes;
  return panoptes?.block;
}
