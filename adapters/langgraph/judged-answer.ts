/**
 * The judge in `wrapModelNode`: `turn` rubrics on an answer with text and no tool calls before the node returns it,
 * `conversation` rubrics in the background, and what either found for the session's next call.
 * @module
 */
import type { BaseMessage } from '@langchain/core/messages';
import { createConversationJudge, DEFAULT_USER_MESSAGE, judgmentReporter, type JudgedOutcome, type Judge, type Logger, type OnJudgment, type OnViolatingText } from '../../src/index.js';
import { judgedResponseNote, judgeResponse, judgesScope, type HostJudge } from '../langchain/judged-calls.js';
import { createSessionNotes } from '../langchain/session-notes.js';
import { toChatMessages } from '../langchain/translate.js';
import { judgedWithheldMessage } from '../langchain/withheld-message.js';

/** An answer of the node, as the judge reads and replaces it. */
export interface JudgeableAnswer {
  response: BaseMessage | undefined;
  turn: { content: string; toolCalls: readonly unknown[] } | undefined;
}

/** How the node judges its answers. */
export interface NodeJudge<Answer extends JudgeableAnswer> {
  /** The judge's notes for the session's next call (a finding about its last answer, a review of the conversation), taken once; '' when none. */
  takeNotes(sessionId: string): string;
  /**
   * The answer, or what takes its place when a `turn` rubric refuses it (`onViolatingText`): `replace` gives an AI
   * message with the user message, `regenerate` runs the node once more with the finding (`retry`), `deliver` lets
   * it out. Every refusal leaves a note for the session's next call. A judge that throws lets the answer out.
   */
  judge(sessionId: string, answer: Answer, sent: readonly BaseMessage[], retry: (note: string) => Promise<{ answer: Answer; replaced: boolean } | undefined>): Promise<Answer>;
  /** After the answer is settled: a turn of the conversation (a due `conversation` rubric is judged in the background). */
  answered(sessionId: string, sent: readonly BaseMessage[], response: BaseMessage | undefined): void;
}

/** The node's judge; `replace` swaps an answer for the AI message that takes its place. */
export function createNodeJudge<Answer extends JudgeableAnswer>(
  judge: Judge,
  { logger, onJudgment, onViolatingText, replace }: { logger: Logger; onJudgment?: OnJudgment | undefined; onViolatingText: OnViolatingText; replace: (answer: Answer, replacement: BaseMessage) => Answer },
): NodeJudge<Answer> {
  const host: HostJudge = { judge, report: judgmentReporter({ logger, ...(onJudgment ? { onJudgment } : {}) }), logger };
  const judgesTurns = judgesScope(judge, 'turn');
  const conversation = judgesScope(judge, 'conversation') ? createConversationJudge(judge, { logger, ...(onJudgment ? { onJudgment } : {}) }) : undefined;
  const notes = createSessionNotes();
  /** Sessions where a turn rubric warned since their last answer: their conversation rubrics are due at once. */
  const warned = createSessionNotes();

  /** The outcome of judging the answer; `undefined` when it is not judged (tool calls, no text, a failing judge). */
  const outcomeOf = async (sessionId: string, answer: Answer, sent: readonly BaseMessage[]): Promise<JudgedOutcome | undefined> => {
    const text = answer.turn?.content ?? '';
    if (!judgesTurns || answer.response === undefined || (answer.turn?.toolCalls.length ?? 0) > 0 || text.trim() === '') return undefined;
    const outcome = await judgeResponse(host, text, sent, sessionId);
    if (outcome && outcome.warnings.length > 0) warned.add(sessionId, 'warned');
    return outcome;
  };
  const withheld = (sessionId: string, answer: Answer, outcome: JudgedOutcome): Answer => {
    notes.add(sessionId, judgedResponseNote(outcome, true));
    const rubrics = outcome.judgments.filter((judgment) => judgment.action !== 'allow' && judgment.action !== 'warn').map((judgment) => judgment.rubric);
    return replace(answer, judgedWithheldMessage(answer.response!, rubrics, outcome.decision === 'ask' ? 'ask' : 'deny', DEFAULT_USER_MESSAGE));
  };

  return {
    takeNotes: (sessionId) => [notes.take(sessionId), conversation?.takeGuidance(sessionId)].filter((note) => note !== undefined).join('\n'),
    async judge(sessionId, answer, sent, retry) {
      const outcome = await outcomeOf(sessionId, answer, sent);
      if (!outcome || outcome.decision === 'allow') return answer;
      if (onViolatingText === 'deliver') {
        notes.add(sessionId, judgedResponseNote(outcome, false));
        return answer;
      }
      if (onViolatingText !== 'regenerate') return withheld(sessionId, answer, outcome);
      const second = await retry(`[POLICY CHECK] Your answer was not shown to the user: it did not pass a policy check. ${outcome.message ?? ''} Answer again.`);
      if (!second) return withheld(sessionId, answer, outcome);
      if (second.replaced) return second.answer; // the monitor withheld the second answer itself
      const again = await outcomeOf(sessionId, second.answer, sent);
      return !again || again.decision === 'allow' ? second.answer : withheld(sessionId, second.answer, again);
    },
    answered(sessionId, sent, response) {
      if (!conversation) return;
      const messages = () => toChatMessages(response ? [...sent, response] : [...sent]);
      conversation.turn(sessionId, { messages, warned: warned.take(sessionId) !== undefined });
    },
  };
}
