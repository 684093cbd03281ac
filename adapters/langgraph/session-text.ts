import type { MonitorSession } from '../../src/index.js';

/**
 * The JSON text of each session a node wrote into graph state or read from it. Sessions are immutable (a change
 * makes a new one), so a session's text never goes stale: a step serialises its session at most once, and a node
 * that finds in state the text it wrote last continues that session without parsing it.
 */
const texts = new WeakMap<MonitorSession, string>();

/** The session as the JSON text graph state holds, serialised once per session. */
export function sessionText(session: MonitorSession): string {
  let text = texts.get(session);
  if (text === undefined) texts.set(session, (text = JSON.stringify(session)));
  return text;
}

/** Whether `text` is the JSON text of this very session (the one a node wrote, or the one it was read from). */
export function isTextOf(session: MonitorSession, text: string): boolean {
  return texts.get(session) === text;
}

/**
 * The session a JSON text from graph state describes.
 * @throws {SyntaxError} when the text is not JSON; {TypeError} when it is JSON but not an object.
 */
export function parseSessionText(text: string): MonitorSession {
  const session: unknown = JSON.parse(text);
  if (typeof session !== 'object' || session === null || Array.isArray(session)) {
    throw new TypeError(`Graph state's panoptes channel holds ${JSON.stringify(text.slice(0, 40))}, not a monitor session. Only Panoptes' nodes should write it; reset it to null to start the session afresh.`);
  }
  texts.set(session as MonitorSession, text);
  return session as MonitorSession;
}
