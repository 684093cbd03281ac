import type { DeviationRecord, MonitorSession, StepRecord } from '../../src/index.js';

/**
 * The JSON text of each session a node wrote into graph state or read from it. Sessions are immutable (a change
 * makes a new one), so a session's text never goes stale: a step serialises its session at most once, and a node
 * that finds in state the text it wrote last continues that session without parsing it.
 */
const texts = new WeakMap<MonitorSession, string>();

/**
 * The two lists that grow to the history limit travel as tuples, not objects: late in a thread they are most of the
 * text, and every checkpoint holds the text again (a long thread's session 4.4 -> 2.8 KB, measured). The rest of the
 * session is its own JSON.
 */
type StepTuple = [index: number, turn: number, state: string, method: StepRecord['method'], confidence: number, elapsedMs?: number];
type DeviationTuple = [from: string, to: string, position: number, at: number, step: number | null];

/** The session as the JSON text graph state holds, serialised once per session. */
export function sessionText(session: MonitorSession): string {
  let text = texts.get(session);
  if (text === undefined) texts.set(session, (text = JSON.stringify(toCompact(session))));
  return text;
}

/** Whether `text` is the JSON text of this very session (the one a node wrote, or the one it was read from). */
export function isTextOf(session: MonitorSession, text: string): boolean {
  return texts.get(session) === text;
}

/**
 * The session a JSON text from graph state describes. Steps and deviations written as objects (by earlier versions,
 * or by hand) read as well.
 * @throws {SyntaxError} when the text is not JSON; {TypeError} when it is JSON but not a session.
 */
export function parseSessionText(text: string): MonitorSession {
  const parsed: unknown = JSON.parse(text);
  if (!isCompactSession(parsed)) {
    throw new TypeError(`Graph state's panoptes channel holds ${JSON.stringify(text.slice(0, 40))}, not a monitor session. Only Panoptes' nodes should write it; reset it to null to start the session afresh.`);
  }
  const session: MonitorSession = {
    ...parsed,
    steps: parsed.steps.map((step) => (Array.isArray(step) ? stepFromTuple(step) : step)),
    workflow: { ...parsed.workflow, deviations: parsed.workflow.deviations.map((deviation) => (Array.isArray(deviation) ? deviationFromTuple(deviation) : deviation)) },
  };
  texts.set(session, text);
  return session;
}

type CompactSession = Omit<MonitorSession, 'steps' | 'workflow'> & {
  steps: Array<StepTuple | StepRecord>;
  workflow: Omit<MonitorSession['workflow'], 'deviations'> & { deviations: Array<DeviationTuple | DeviationRecord> };
};

function toCompact(session: MonitorSession): CompactSession {
  return {
    ...session,
    // A step's time is its sixth element, absent in sessions stored before steps kept one.
    steps: session.steps.map(({ index, turn, state, method, confidence, elapsedMs }): StepTuple => (elapsedMs === undefined ? [index, turn, state, method, confidence] : [index, turn, state, method, confidence, elapsedMs])),
    workflow: { ...session.workflow, deviations: session.workflow.deviations.map(({ from, to, position, at, step }): DeviationTuple => [from, to, position, at, step ?? null]) },
  };
}

function isCompactSession(value: unknown): value is CompactSession {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { steps, workflow } = value as Partial<CompactSession>;
  return Array.isArray(steps) && typeof workflow === 'object' && workflow !== null && Array.isArray(workflow.deviations);
}

function stepFromTuple([index, turn, state, method, confidence, elapsedMs]: StepTuple): StepRecord {
  return typeof elapsedMs === 'number' ? { index, turn, state, method, confidence, elapsedMs } : { index, turn, state, method, confidence };
}

function deviationFromTuple([from, to, position, at, step]: DeviationTuple): DeviationRecord {
  return step === null ? { from, to, position, at } : { from, to, position, step, at };
}
