import type { ChatMessage } from '../messages/index.js';
import { warnSafely, type Logger } from '../monitor/fail-open.js';
import { decideJudgments, type JudgedOutcome } from './host.js';
import { rubricApplies } from './input.js';
import type { Judge } from './judge.js';
import { judgmentReporter, type OnJudgment } from './report.js';

/** Conversation judgments in flight at once, over every session, unless told otherwise. */
export const DEFAULT_CONVERSATION_IN_FLIGHT = 4;
/** Sessions whose turn count and guidance are kept, unless told otherwise; the least recent is forgotten past it. */
export const DEFAULT_CONVERSATION_SESSIONS = 10_000;

/** Options of {@link createConversationJudge}. */
export interface ConversationJudgeOptions {
  /** Conversation judgments in flight at once; a due judgment past it is skipped and counted. @default 4 */
  maxInFlight?: number;
  /** Sessions kept (turn count, pending guidance). @default 10000 */
  maxSessions?: number;
  /** Where a failure is logged, once, and the first warning of each rubric. @default console */
  logger?: Logger;
  /** Told each outcome that did not simply pass (user code: caught). */
  onJudgment?: OnJudgment;
  /**
   * Takes each finding for the model as soon as it is written, instead of keeping it for `takeGuidance` (a host that
   * stores notes where its next call reads them: the proxy's shared session store). Awaited inside the judgment, so
   * `settled()` waits for it; a throw or rejection is counted in `stats().failures` and logged once.
   */
  onGuidance?: (sessionId: string, text: string) => void | Promise<void>;
}

/** What a host tells a conversation judge at the end of each turn. */
export interface ConversationJudgeTurn {
  /** The conversation so far, the turn's answer included; a getter is read only when a rubric is due. */
  messages: readonly ChatMessage[] | (() => readonly ChatMessage[]);
  /** A `turn` or `tool_call` rubric warned during this turn: every conversation rubric is due now. */
  warned?: boolean;
  /** The workflow state, for `applies_to.states`. */
  state?: string;
}

/** Counts of a conversation judge's work. */
export interface ConversationJudgeStats {
  turns: number;
  /** Judgments of the conversation started. */
  started: number;
  /** Due judgments not started: one was in flight for the session, or `maxInFlight` were. */
  skipped: number;
  /** Judgments that failed outside the judge's own error handling (counted, logged once). */
  failures: number;
}

/** Runs `conversation` rubrics beside an agent, off its critical path. */
export interface ConversationJudge {
  /**
   * Counts a turn of the session and, when a conversation rubric is due (its `every_turns`, or `warned`), starts
   * judging the conversation in the background. Returns at once: nothing the agent awaits.
   */
  turn(sessionId: string, turn: ConversationJudgeTurn): void;
  /**
   * The guidance for the session's next model call (what the last judgment found, written for the model), taken
   * once; `undefined` when there is none.
   */
  takeGuidance(sessionId: string): string | undefined;
  /** Resolves once the judgments in flight are done (tests, shutdown). */
  settled(): Promise<void>;
  stats(): ConversationJudgeStats;
}

/**
 * Runs a judge's `conversation` rubrics every `every_turns` turns of a session, or at once after a turn in which a
 * `turn` or `tool_call` rubric warned, without holding the agent: the judgment runs in the background (one per
 * session at a time, at most `maxInFlight` in all), and its outcome becomes guidance on the session's next model
 * call (`takeGuidance`). A rubric that fails or cannot be judged with `deny` or `ask` gives guidance (the action
 * it judged is past); `warn` is logged and reported. Framework-free: any host calls `turn` after each answer and
 * puts `takeGuidance` into its next request.
 * @example
 * const conversation = createConversationJudge(judge);
 * conversation.turn(sessionId, { messages });          // after each answer
 * const note = conversation.takeGuidance(sessionId);   // before the next model call: add it to the system prompt
 */
export function createConversationJudge(judge: Judge, { maxInFlight = DEFAULT_CONVERSATION_IN_FLIGHT, maxSessions = DEFAULT_CONVERSATION_SESSIONS, logger = console, onJudgment, onGuidance }: ConversationJudgeOptions = {}): ConversationJudge {
  const rubrics = judge.rubrics.filter((rubric) => rubric.scope === 'conversation');
  const turns = new Map<string, number>();
  const guidance = new Map<string, string>();
  const running = new Map<string, Promise<void>>();
  const stats: ConversationJudgeStats = { turns: 0, started: 0, skipped: 0, failures: 0 };
  const report = judgmentReporter({ logger, ...(onJudgment ? { onJudgment } : {}) });
  let failureLogged = false;

  /** Keeps a bounded map: a touched key moves to the end, the oldest goes past `maxSessions`. */
  const keep = <V>(map: Map<string, V>, key: string, value: V) => {
    map.delete(key);
    map.set(key, value);
    if (map.size > maxSessions) map.delete(map.keys().next().value!);
  };

  async function run(sessionId: string, turn: number, due: typeof rubrics, { messages, state }: ConversationJudgeTurn): Promise<void> {
    try {
      const input = { messages: typeof messages === 'function' ? messages() : messages, sessionId, turn, ...(state === undefined ? {} : { state }) };
      const outcome = decideJudgments(await Promise.all(due.map((rubric) => judge.judge(rubric, input))), judge);
      report({ scope: 'conversation', sessionId, ...(state === undefined ? {} : { state }), outcome });
      const note = guidanceOf(outcome);
      if (note && onGuidance) await onGuidance(sessionId, note);
      else if (note) keep(guidance, sessionId, note);
    } catch (error) {
      stats.failures++;
      if (!failureLogged) warnSafely(logger, '[panoptes] judging the conversation failed; the agent goes on unjudged. Later failures are counted, not logged.', error);
      failureLogged = true;
    }
  }

  return {
    turn(sessionId, turn) {
      stats.turns++;
      const count = (turns.get(sessionId) ?? 0) + 1;
      keep(turns, sessionId, count);
      // A warned turn makes every rubric due: it is judged as if its every_turns had come round.
      const due = rubrics.filter((rubric) => rubricApplies(rubric, 'conversation', { turn: turn.warned ? rubric.everyTurns : count, ...(turn.state === undefined ? {} : { state: turn.state }) }));
      if (due.length === 0) return;
      if (running.has(sessionId) || running.size >= maxInFlight) {
        stats.skipped++;
        return;
      }
      stats.started++;
      const judging = run(sessionId, count, due, turn).finally(() => running.delete(sessionId));
      running.set(sessionId, judging);
    },
    takeGuidance(sessionId) {
      const note = guidance.get(sessionId);
      guidance.delete(sessionId);
      return note;
    },
    settled: async () => {
      while (running.size > 0) await Promise.all(running.values());
    },
    stats: () => ({ ...stats }),
  };
}

/** The note the next model call reads about a judged conversation; none for a pass or a warning. */
function guidanceOf(outcome: JudgedOutcome): string | undefined {
  if (outcome.decision === 'allow' || !outcome.message) return undefined;
  const next = outcome.decision === 'ask' ? 'Ask the user how to go on before you act further.' : 'Correct course in your next reply.';
  return `[CONVERSATION REVIEW] ${outcome.message} ${next}`;
}
