/**
 * The session a proxied request names, in the reference proxy's order (docs/proxy.md, "Sessions"). A request that
 * names none is placed by its conversation's history instead (see `conversation-placement.ts`).
 * @module
 */
import { createHash } from 'node:crypto';

/** Where a session id came from; returned in the `x-panoptes-session-source` response header. */
export type SessionSource =
  | 'header:x-panoptes-session-id'
  | 'header:x-session-id'
  | 'metadata.session_id'
  | 'metadata.panoptes_session_id'
  | 'metadata.run_id'
  | 'user'
  | 'thread_id'
  | 'conversation.id'
  | 'conversation';

/** Ids longer than this are hashed, so a client cannot make the proxy keep (or send to Redis) a huge key. */
const MAX_ID_LENGTH = 256;

const HEADERS = ['x-panoptes-session-id', 'x-session-id'] as const;
const METADATA_KEYS = ['session_id', 'panoptes_session_id', 'run_id'] as const;

/**
 * The session a request names: the first of headers `x-panoptes-session-id`, `x-session-id`; `metadata.session_id`,
 * `metadata.panoptes_session_id`, `metadata.run_id`; `user`; `thread_id`. Empty strings do not count. `undefined`
 * when it names none.
 *
 * There is deliberately no fallback on the conversation's opening: two customers who open with the same words are
 * different conversations, and a session shared by them would let one's identity check authorise the other's refund.
 * @example
 * namedSessionOf({ 'x-session-id': 'abc' }, body) // { sessionId: 'abc', source: 'header:x-session-id' }
 */
export function namedSessionOf(headers: Record<string, string | string[] | undefined>, body: Readonly<Record<string, unknown>>): { sessionId: string; source: SessionSource } | undefined {
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
  return undefined;
}

/** Whether `value` can be a session id: a string that is not blank. */
export function isId(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** A session id as the proxy keeps it: hashed when longer than 256 characters. */
export function bounded(id: string): string {
  return id.length <= MAX_ID_LENGTH ? id : `sha256-${createHash('sha256').update(id).digest('hex')}`;
}
