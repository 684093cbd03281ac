/**
 * Tool results as provenance sources in the proxy. The client sends every result back in every request, so each one
 * is recognised by its call and content and recorded once; a result of a call this proxy instance did not let through
 * (it restarted, another instance answered, the history came from elsewhere) is still a source, since an untrusted
 * source left out would let the value it carries pass as the user's: provenance must not fail open.
 * @module
 */
import { createHash } from 'node:crypto';
import type { ProvenanceLog, Trust, TrustOf } from '../../facts/index.js';
import type { ChatMessage } from '../../messages/index.js';

/** Most tool results a session remembers as recorded; past it the oldest is forgotten (and recorded again if resent). */
export const MAX_RECORDED_RESULTS = 4_096;

type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

/** A result's text as the tool gave it: some agents wrap tool outputs in `<<` ... `>>`, which would hide their JSON. */
export function resultText(content: string): string {
  const body = content.trim();
  return body.length >= 4 && body.startsWith('<<') && body.endsWith('>>') ? body.slice(2, -2).trim() : content;
}

/** What identifies one result across requests: its call (id, else tool name) and a digest of its text. */
export function resultKey(message: ToolMessage): string {
  const call = message.toolCallId ?? `#${message.name ?? ''}`;
  return `${call}\u0000${createHash('sha256').update(message.content).digest('base64url')}`;
}

/**
 * Remembers the results recorded in one session, bounded; `firstTime` says whether a key is new (and remembers it).
 * Forgetting only makes a result be recorded again: a repeated source, never a missing one.
 */
export function recordedResults(max = MAX_RECORDED_RESULTS): { firstTime(key: string): boolean } {
  const keys = new Set<string>();
  return {
    firstTime(key) {
      if (keys.has(key)) return false;
      keys.add(key);
      if (keys.size > max) keys.delete(keys.values().next().value!);
      return true;
    },
  };
}

/**
 * Records, for provenance only, a result of a call this proxy did not let through: no facts come of it (the client
 * could send anything), but the values in it are sources. Its tool is the one the request's own assistant turn named
 * for the call id; an unknown tool is untrusted, and a `directory` declaration counts as untrusted here, since a
 * directory entry clears a value and only a result of a call this proxy saw made may do that.
 */
export function recordUnverifiedResult(log: ProvenanceLog, message: ToolMessage, tool: string | undefined, trustOf: TrustOf): void {
  const downgraded: TrustOf = (name, path) => {
    if (tool === undefined) return 'untrusted';
    const trust: Trust = trustOf(name, path);
    return trust === 'directory' ? 'untrusted' : trust;
  };
  log.recordToolResult(tool ?? 'an unknown tool', resultText(message.content), downgraded);
}
