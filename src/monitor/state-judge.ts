import type { ChatMessage, AssistantTurn } from '../messages/index.js';
import { decideJudgments } from '../judge/host.js';
import type { Judge } from '../judge/judge.js';
import { judgmentReporter, type JudgmentReport } from '../judge/report.js';
import type { Rubric } from '../judge/rubric.js';
import type { Logger, MissCause } from './fail-open.js';
import type { AfterModelResult } from './types.js';

/** Judgments of states in flight at once, per monitor; a response past it is not judged (a counted `judge` miss). */
export const MAX_STATE_JUDGMENTS_IN_FLIGHT = 16;

/** What the monitor gives its state judge. */
export interface StateJudgeHost {
  judge: Judge;
  logger: Logger;
  misses: { record(cause: MissCause, message: string, error?: unknown): void };
  /** Announces an outcome that did not simply pass (the monitor's `judgment` event). */
  emit(report: JudgmentReport): void;
  /** Queues a note for the session's next call (as `noteRefusals` does). */
  note(sessionId: string, text: string): Promise<void>;
}

/**
 * Judges a classified response with the judge's `turn` rubrics that name the state it was classified in
 * (`applies_to.states`), beside the monitor's call, never holding it: a rubric that fails or cannot be judged with
 * `deny` or `ask` becomes a note on the session's next call (the response has gone out), every outcome that did not
 * simply pass is announced, and the first warning of a rubric is logged. Rubrics without `states` are for hosts to
 * judge before delivery; the monitor leaves them alone.
 */
export function createStateJudge({ judge, logger, misses, emit, note }: StateJudgeHost) {
  const stated = judge.rubrics.filter((rubric) => rubric.scope === 'turn' && (rubric.appliesTo.states?.length ?? 0) > 0);
  const inFlight = new Set<Promise<void>>();
  const report = judgmentReporter({ logger, onJudgment: emit });

  async function run(sessionId: string, due: readonly Rubric[], input: { response: string; state: string; messages?: () => readonly ChatMessage[] }): Promise<void> {
    try {
      const judged = { response: input.response, sessionId, state: input.state, ...(input.messages ? { messages: input.messages() } : {}) };
      const outcome = decideJudgments(await Promise.all(due.map((rubric) => judge.judge(rubric, judged))), judge);
      report({ scope: 'turn', sessionId, state: input.state, outcome });
      if (outcome.decision !== 'allow' && outcome.message) {
        await note(sessionId, `[POLICY CHECK] Your last answer (in state '${input.state}') did not pass a policy check. ${outcome.message} Correct it in your next reply.`);
      }
    } catch (error) {
      misses.record('judge', "Judging a response on its workflow state failed; the session goes on unjudged.", error);
    }
  }

  return {
    /** After `afterModel`: starts judging a delivered text response whose state has rubrics; returns at once. */
    afterTurn(sessionId: string, turn: AssistantTurn, result: AfterModelResult, messages: (() => readonly ChatMessage[]) | undefined): void {
      if (stated.length === 0 || result.withheld || turn.content.trim() === '') return;
      const text = result.classifications.find((classification) => classification.evidence.kind !== 'tool_call');
      if (!text) return;
      const due = stated.filter((rubric) => rubric.appliesTo.states!.includes(text.state));
      if (due.length === 0) return;
      if (inFlight.size >= MAX_STATE_JUDGMENTS_IN_FLIGHT) {
        misses.record('judge', `More than ${MAX_STATE_JUDGMENTS_IN_FLIGHT} judgments of states were in flight; a response went unjudged.`);
        return;
      }
      const judging = run(sessionId, due, { response: turn.content, state: text.state, ...(messages ? { messages } : {}) });
      inFlight.add(judging);
      void judging.finally(() => inFlight.delete(judging));
    },
    /** Resolves once the judgments in flight are done (`close()`, tests). */
    settled: async (): Promise<void> => {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
