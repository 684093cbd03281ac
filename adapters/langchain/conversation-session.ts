import type { BaseMessage } from '@langchain/core/messages';
import { getConfig } from '@langchain/langgraph';
import { conversationSessionId } from '../../src/index.js';
import { sessionIdFrom } from './session-id.js';
import { conversationOpening } from './translate.js';

// Enough to cover every live thread of a busy process; an evicted entry only matters for a thread with no id.
const REMEMBERED_THREADS = 10_000;

/**
 * Finds the session of a `createAgent` hook: the option, `configurable.thread_id`, `metadata.session_id`, else a
 * hash of the system prompt and the first user message (DESIGN.md section 7).
 *
 * Only `wrapModelCall` sees the system prompt (it is not part of the agent's state), so it passes `systemPrompt`
 * (read only when the hash is needed), and the id it hashes is remembered by the id of the thread's first message,
 * which LangGraph assigns once and keeps; the tool and after-agent hooks find it there.
 */
export function createSessionFinder(option: string | undefined) {
  const remembered = new Map<string, string>();

  function hashed(messages: readonly BaseMessage[], systemPrompt: (() => string) | undefined): string {
    const key = messages[0]?.id;
    const known = key === undefined ? undefined : remembered.get(key);
    if (known !== undefined && systemPrompt === undefined) return known;
    const id = conversationSessionId(conversationOpening(messages, systemPrompt?.() ?? ''));
    if (key !== undefined && systemPrompt !== undefined) remember(remembered, key, id);
    return id;
  }

  return function sessionOf(configurable: { thread_id?: unknown } | undefined, messages: readonly BaseMessage[], systemPrompt?: () => string): string {
    // The run's metadata is read only when nothing before it names the session: every hook asks.
    return sessionIdFrom(option) ?? sessionIdFrom(configurable?.thread_id) ?? sessionIdFrom(currentMetadata()?.session_id) ?? hashed(messages, systemPrompt);
  };
}

/** The run's metadata, read from LangGraph's async context: hooks receive `configurable` but not `metadata`. */
function currentMetadata(): Record<string, unknown> | undefined {
  try {
    return getConfig()?.metadata;
  } catch {
    return undefined; // outside a LangGraph run
  }
}

function remember(map: Map<string, string>, key: string, value: string): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBERED_THREADS) map.delete(map.keys().next().value!);
}
