/**
 * `POST /v1/messages`, Anthropic's Messages API, served for an Anthropic-compatible upstream (`anthropic_upstream`):
 * requests read and edited by request.ts, answers by answer.ts (JSON) and stream-gate.ts (events). Errors are in
 * Anthropic's shape, so Anthropic clients raise them as their own.
 * @module
 */
import type { GenerationRoute } from '../route.js';
import { readMessage } from './answer.js';
import { messagesEdited, messagesNamedSession, messagesProblem, offeredMessagesNames, requestMessages, type MessagesRequest } from './request.js';
import { MessagesStreamGate } from './stream-gate.js';

/** The Anthropic Messages route. */
export const messagesRoute: GenerationRoute<MessagesRequest> = {
  path: '/v1/messages',
  label: 'Messages API call',
  namedBy: 'metadata.user_id',
  errors: 'anthropic',
  problem: messagesProblem,
  namedSession: messagesNamedSession,
  messages: (body) => requestMessages(body).messages,
  edited: messagesEdited,
  offered(body) {
    const names = offeredMessagesNames(body.tools);
    return { names, available: names ? [...names] : undefined };
  },
  read: readMessage,
  gate: (options) => new MessagesStreamGate(options),
};
