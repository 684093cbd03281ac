import type { BaseMessage } from '@langchain/core/messages';
import {
  InvalidOptionError,
  judgeToolCall,
  judgeTurn,
  warnSafely,
  type JudgedOutcome,
  type Judge,
  type JudgmentReport,
  type Logger,
  type ToolCall,
} from '../../src/index.js';
import { toChatMessages } from './translate.js';

/** A judge as a LangChain host uses it: where outcomes are reported, where its failures are logged. */
export interface HostJudge {
  judge: Judge;
  report: (report: JudgmentReport) => void;
  logger: Logger;
}

/**
 * Throws for a `judge` option that is not a judge from `createJudge`, at a host's construction.
 * @throws {InvalidOptionError}
 */
export function assertJudgeOption(judge: unknown): asserts judge is Judge | undefined {
  if (judge === undefined) return;
  const candidate = judge as Partial<Judge> | null;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.judgeScope !== 'function' || !Array.isArray(candidate.rubrics)) {
    throw new InvalidOptionError({ parameter: 'judge', value: judge, fix: 'Pass a judge from createJudge({ model, rubrics }).' });
  }
}

/** Whether the judge has a rubric of this scope: a host skips the work of a scope nobody judges. */
export function judgesScope(judge: Judge | undefined, scope: 'tool_call' | 'turn' | 'conversation'): boolean {
  return judge !== undefined && judge.rubrics.some((rubric) => rubric.scope === scope);
}

/**
 * Judges a tool call the rules allowed, before it runs, on the thread's messages. The judge resolves its own
 * failures through each rubric's `on_error`; a judge that throws anyway denies the call (a guard fails closed), and
 * that is logged once.
 */
export async function judgeCallBeforeRun({ judge, report, logger }: HostJudge, call: ToolCall, messages: readonly BaseMessage[] | undefined, sessionId: string | undefined): Promise<JudgedOutcome> {
  let outcome: JudgedOutcome;
  try {
    outcome = await judgeToolCall(judge, { call, messages: messages ? toChatMessages(messages) : [], ...(sessionId === undefined ? {} : { sessionId }) });
  } catch (error) {
    failedOnce(logger, 'tool_call', error, 'the call is refused');
    outcome = { decision: 'deny', reasons: [`the judge failed: ${String(error)}`], warnings: [], judgments: [], message: 'This action could not be checked against a policy.' };
  }
  report({ scope: 'tool_call', tool: call.name, ...(sessionId === undefined ? {} : { sessionId }), outcome });
  return outcome;
}

/**
 * Judges a response before it is returned. A judge that throws lets the response go (a check of text fails open,
 * as the monitor's does), logged once; `undefined` then.
 */
export async function judgeResponse({ judge, report, logger }: HostJudge, response: string, messages: readonly BaseMessage[], sessionId: string): Promise<JudgedOutcome | undefined> {
  try {
    const outcome = await judgeTurn(judge, { response, messages: toChatMessages(messages), sessionId });
    report({ scope: 'turn', sessionId, outcome });
    return outcome;
  } catch (error) {
    failedOnce(logger, 'turn', error, 'the response goes out unjudged');
    return undefined;
  }
}

/**
 * The text a refused call answers the model with: the judge's finding, and for `ask` (a host without an approval
 * path) the question to put to the user first.
 */
export function judgedRefusalText(call: ToolCall, outcome: JudgedOutcome): string {
  const found = outcome.message ?? 'A policy check did not pass.';
  if (outcome.decision !== 'ask') return `${found} The ${call.name} call did not run.`;
  return `${found} The ${call.name} call did not run: ask the user whether to go ahead, and call it again only once they agree.`;
}

/** The note the model reads on its next call about a response the judge did not pass. */
export function judgedResponseNote(outcome: JudgedOutcome, withheld: boolean): string {
  const found = outcome.message ?? 'A policy check did not pass.';
  return withheld ? `[POLICY CHECK] Your previous answer was withheld from the user. ${found}` : `[POLICY CHECK] Your previous answer was delivered but did not pass a policy check. ${found} Correct it in your next reply.`;
}

const logged = new WeakMap<Logger, Set<string>>();
function failedOnce(logger: Logger, scope: string, error: unknown, consequence: string): void {
  const seen = logged.get(logger) ?? new Set<string>();
  logged.set(logger, seen);
  if (seen.has(scope)) return;
  seen.add(scope);
  warnSafely(logger, `[panoptes] the judge failed on a ${scope} judgment; ${consequence}. Later failures are not logged.`, error);
}
