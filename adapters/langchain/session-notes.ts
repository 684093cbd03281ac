/** Sessions whose notes are kept at most, unless told otherwise: the least recent is forgotten past it. */
const DEFAULT_MAX_SESSIONS = 10_000;

/**
 * Notes for a session's next model call, taken once: what the judge found about an answer already past. Bounded:
 * a note repeated is kept once, and past `maxSessions` the least recent session's notes go.
 */
export function createSessionNotes(maxSessions = DEFAULT_MAX_SESSIONS) {
  const notes = new Map<string, string[]>();
  return {
    add(sessionId: string, note: string): void {
      const kept = notes.get(sessionId) ?? [];
      notes.delete(sessionId);
      notes.set(sessionId, kept.includes(note) ? kept : [...kept, note]);
      if (notes.size > maxSessions) notes.delete(notes.keys().next().value!);
    },
    /** The session's notes, one a line, and forgets them; `undefined` when there are none. */
    take(sessionId: string): string | undefined {
      const kept = notes.get(sessionId);
      notes.delete(sessionId);
      return kept?.join('\n');
    },
  };
}
