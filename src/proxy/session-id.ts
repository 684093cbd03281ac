/**
 * Which session a proxied request belongs to, in the reference proxy's order (docs/proxy.md, "Sessions").
 * @module
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ChatCompletionRequest } from './openai-types.js';
import { textOf } from './translate.js';

/** Where a session id came from; returned in the `x-panoptes-session-source` response header. */
export type SessionSource =
  | 'header:x-panoptes-session-id'
  | 'header:x-session-id'
  | 'metadata.session_id'
  | 'metadata.panoptes_session_id'
  | 'metadata.run_id'
  | 'user'
  | 'thread_id'
  | 'conversation-hash'
  | 'fresh';

/** Ids longer than this are hashed, so a client cannot make the proxy keep (or send to Redis) a huge key. */
const MAX_ID_LENGTH = 256;

const HEADERS = ['x-panoptes-session-id', 'x-session-id'] as const;
const METADATA_KEYS = ['session_id', 'panoptes_session_id', 'run_id'] as const;

/**
 * The session of a request: the first of headers `x-panoptes-session-id`, `x-session-id`; `metadata.session_id`,
 * `metadata.panoptes_session_id`, `metadata.run_id`; `user`; `thread_id`; a hash of the system prompt and the first
 * user message; else a fresh id. Empty strings do not count.
 *
 * The hash makes every call of one conversation land in one session with no id sent (each call repeats the opening),
 * on any proxy instance. Two conversations that open with the same words share that session, so clients that can
 * send an id should.
 * @example
 * sessionIdOf({ 'x-session-id': 'abc' }, body) // { sessionId: 'abc', source: 'header:x-session-id' }
 */
export function sessionIdOf(headers: Record<string, string | string[] | undefined>, body: ChatCompletionRequest): { sessionId: string; source: SessionSource } {
  for (const name of HEADERS) {
    const value = headers[name];
    const id = Array.isArray(value) ? value[0] : value;
    if (isId(id)) return { sessionId: bounded(id), source: `header:${name}` };
  }
  const metadata = body.metadata;
  if (typeof metadata === 'object' && metadata !== null) {
    for (const key of METADATA_KEYS) {
      const id = (metadata as Record<string, unknown>)[key];
      if (isId(id)) return { sessionId: bounded(id), source: `metadata.${key}` };
    }
  }
  if (isId(body.user)) return { sessionId: bounded(body.user), source: 'user' };
  if (isId(body.thread_id)) return { sessionId: bounded(body.thread_id), source: 'thread_id' };
  const opening = openingOf(body);
  if (opening !== undefined) return { sessionId: `conversation-${createHash('sha256').update(opening).digest('hex').slice(0, 32)}`, source: 'conversation-hash' };
  return { sessionId: `session-${randomUUID()}`, source: 'fresh' };
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

function bounded(id: string): string {
  return id.length <= MAX_ID_LENGTH ? id : `sha256-${createHash('sha256').update(id).digest('hex')}`;
}

/** The system prompt and the first user message, or `undefined` when there is no user message. */
function openingOf(body: ChatCompletionRequest): string | undefined {
  const messages = body.messages;
  const user = messages.find((message) => message.role === 'user');
  if (!user) return undefined;
  const system = messages.find((message) => message.role === 'system' || message.role === 'developer');
  // Interventions append to the system prompt on some calls, so only the text the client wrote counts: the proxy
  // hashes the request as it arrives, before any edit. The separator cannot occur in JSON-escaped text.
  return `${JSON.stringify(textOf(system?.content))}\u0000${JSON.stringify(textOf(user.content))}`;
}
