import { conversationSessionId } from '../../src/index.js';
import type { CallOptions, Prompt, ProviderMetadata } from './host-types.js';
import { openingMessages } from './translate.js';

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
 * system prompt and the first user message (the core's `conversationSessionId`), so every call of one conversation
 * lands in the same session without any configuration.
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
  return derivedSessionId(params.prompt);
}

/**
 * Derived ids remembered, one per conversation opening; past this many the oldest is forgotten (and hashed again
 * if its conversation comes back). Each entry holds its opening's text, so this bounds the memory too.
 */
const DERIVED_LIMIT = 256;
const derivedIds = new Map<string, string>();

/**
 * `conversationSessionId` of the prompt's opening, remembered by the opening's text: every call of a conversation
 * starts with the same opening, and converting and hashing it again on each call showed in the `streamText`
 * overhead (bench/adapters-ai-sdk.ts). The key holds everything the hash reads (`openingMessages`: the leading
 * system messages and the first user message's text), each piece with its length, so different openings never
 * share a key.
 */
function derivedSessionId(prompt: Prompt): string {
  const key = openingKey(prompt);
  const known = derivedIds.get(key);
  if (known !== undefined) return known;
  const id = conversationSessionId(openingMessages(prompt));
  derivedIds.set(key, id);
  if (derivedIds.size > DERIVED_LIMIT) derivedIds.delete(derivedIds.keys().next().value!);
  return id;
}

function openingKey(prompt: Prompt): string {
  let key = '';
  for (const message of prompt) {
    if (message.role !== 'system') break;
    key += `s${message.content.length}:${message.content}`;
  }
  const firstUser = prompt.find((message) => message.role === 'user');
  if (firstUser?.role !== 'user') return key;
  for (const part of firstUser.content) if (part.type === 'text') key += `u${part.text.length}:${part.text}`;
  return key;
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
