import type { CallOptions, ProviderMetadata } from './host-types.js';

/**
 * The request header that names a call's session: `x-panoptes-session-id`. Matched case-insensitively.
 * @example
 * await generateText({ model, prompt, headers: { [SESSION_ID_HEADER]: 'ticket-42' } });
 */
export const SESSION_ID_HEADER = 'x-panoptes-session-id';

/** The `providerOptions` and `providerMetadata` key Panoptes reads and writes: `panoptes`. */
export const PANOPTES_KEY = 'panoptes';

/**
 * The session a model call names, in this order: the middleware's `sessionId` option;
 * `providerOptions.panoptes.sessionId`; the `x-panoptes-session-id` header. `undefined` when it names none: the
 * middleware then places the call by its conversation (`monitor.conversations`).
 * @example
 * namedSessionIdOf(params, 'ticket-42') // 'ticket-42', whatever the call says
 * // per call, from the app:
 * await generateText({ model, prompt, providerOptions: { panoptes: { sessionId: 'ticket-42' } } });
 */
export function namedSessionIdOf(params: CallOptions, explicit?: string): string | undefined {
  if (explicit !== undefined) return explicit;
  const fromOptions = params.providerOptions?.[PANOPTES_KEY]?.sessionId;
  if (typeof fromOptions === 'string' && fromOptions !== '') return fromOptions;
  const fromHeader = headerValue(params.headers, SESSION_ID_HEADER);
  return fromHeader === '' ? undefined : fromHeader;
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
