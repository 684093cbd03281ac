import type { CallOptions, Prompt, ProviderMetadata } from './host-types.js';
import { stableHash } from './stable-hash.js';

/**
 * The request header that names a call's session: `x-panoptes-session-id`. Matched case-insensitively.
 * @example
 * await generateText({ model, prompt, headers: { [SESSION_ID_HEADER]: 'ticket-42' } });
 */
export const SESSION_ID_HEADER = 'x-panoptes-session-id';

/** The `providerOptions` and `providerMetadata` key Panoptes reads and writes: `panoptes`. */
export const PANOPTES_KEY = 'panoptes';

/**
 * The session a model call belongs to (DESIGN.md section 7), in this order: the middleware's `sessionId` option;
 * `providerOptions.panoptes.sessionId`; the `x-panoptes-session-id` header; else a stable hash of the opening
 * system prompt and the first user message, so every call of one conversation lands in the same session without
 * any configuration.
 * @example
 * sessionIdOf(params, 'ticket-42') // 'ticket-42', whatever the call says
 * // per call, from the app:
 * await generateText({ model, prompt, providerOptions: { panoptes: { sessionId: 'ticket-42' } } });
 */
export function sessionIdOf(params: CallOptions, explicit?: string): string {
  if (explicit !== undefined) return explicit;
  const fromOptions = params.providerOptions?.[PANOPTES_KEY]?.sessionId;
  if (typeof fromOptions === 'string' && fromOptions !== '') return fromOptions;
  const fromHeader = headerValue(params.headers, SESSION_ID_HEADER);
  if (fromHeader !== undefined && fromHeader !== '') return fromHeader;
  return conversationId(params.prompt);
}

/**
 * A conversation's id from its opening: the system messages before the first other message, and the text of the
 * first user message. Later turns do not change it, and neither do interventions (they edit only the copy of the
 * prompt sent to the model, never the conversation the host keeps).
 * @example
 * conversationId([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: [{ type: 'text', text: 'Hi' }] }]) // 'conversation-…'
 */
export function conversationId(prompt: Prompt): string {
  const opening: string[] = [];
  for (const message of prompt) {
    if (message.role !== 'system') break;
    opening.push(message.content);
  }
  const firstUser = prompt.find((message) => message.role === 'user');
  const userText = firstUser?.role === 'user' ? firstUser.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n') : '';
  return `conversation-${stableHash([opening.join('\n'), userText])}`;
}

/**
 * Response metadata naming the session, so the app and the stop condition can find a derived session id.
 * @example
 * withSessionMetadata({ openai: { responseId: 'r1' } }, 's1') // { openai: { responseId: 'r1' }, panoptes: { sessionId: 's1' } }
 */
export function withSessionMetadata(metadata: ProviderMetadata | undefined, sessionId: string): ProviderMetadata {
  return { ...metadata, [PANOPTES_KEY]: { ...metadata?.[PANOPTES_KEY], sessionId } };
}

/**
 * The session id the middleware wrote into a response's `providerMetadata`, if any: how an app finds the session
 * of a conversation whose id was derived.
 * @example
 * const result = await generateText({ model, prompt });
 * const report = await monitor.endSession(sessionIdFromMetadata(result.providerMetadata)!);
 */
export function sessionIdFromMetadata(metadata: ProviderMetadata | undefined): string | undefined {
  const value = metadata?.[PANOPTES_KEY]?.sessionId;
  return typeof value === 'string' ? value : undefined;
}

function headerValue(headers: CallOptions['headers'], name: string): string | undefined {
  if (headers === undefined) return undefined;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}
