/**
 * `turn` rubrics in the middleware: a response's text judged before it is returned where the middleware still holds
 * it (a generated response, a held stream), and a note to the model on the session's next call where it does not (a
 * stream that went out as it came, or `onViolatingText: 'deliver'`).
 * @module
 */
import { appendToSystem, DEFAULT_USER_MESSAGE, judgeTurn, warnSafely, type Judge, type JudgedOutcome, type Logger, type WithheldResponse } from '../../src/index.js';
import type { CallOptions, ProviderMetadata, ResponseContent } from './host-types.js';
import { toChatMessages, withInterventions } from './translate.js';

/** The `withheld.state` a response the judge withheld carries in `providerMetadata.panoptes` (its `constraints` are the rubrics). */
export const JUDGE_WITHHELD_STATE = 'judge';

/** Sessions with a note waiting for their next call; the oldest are dropped past it. */
const NOTES_LIMIT = 10_000;

/** The judge's side of the middleware. */
export interface TurnJudge {
  /**
   * Judges the text of a response with the turn rubrics that apply, on the prompt's conversation. `undefined` when
   * none applies or the response has no text (its tool calls are judged by `guardTools`).
   */
  judge(sessionId: string | undefined, prompt: CallOptions['prompt'], content: readonly ResponseContent[]): Promise<JudgedOutcome | undefined>;
  /** What takes the place of a response the judge refused. */
  withheld(outcome: JudgedOutcome): WithheldResponse;
  /** After a judged response is settled: a refusal leaves a note for the session's next call, warnings are logged. */
  settled(sessionId: string | undefined, outcome: JudgedOutcome, withheld: boolean): void;
  /** The call's params with the note the session's last judged response left, if any (the note is used up). */
  withNote(sessionId: string | undefined, params: CallOptions): CallOptions;
}

/** The judge for the middleware's responses; never throws (the judge turns its own failures into `on_error`). */
export function createTurnJudge(
  judge: Judge,
  { userMessage = DEFAULT_USER_MESSAGE, logger, onWarning }: { userMessage?: string | undefined; logger: Logger; /** A rubric warned about the session's response. */ onWarning?: (sessionId: string | undefined) => void },
): TurnJudge {
  const notes = new Map<string, string>();
  return {
    async judge(sessionId, prompt, content) {
      const response = content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
      if (response.trim() === '') return undefined;
      const messages = toChatMessages(prompt).messages;
      const input = { response, messages, ...(sessionId === undefined ? {} : { sessionId }) };
      if (judge.applicable('turn', input).length === 0) return undefined;
      return judgeTurn(judge, input);
    },
    withheld: (outcome) => ({
      state: JUDGE_WITHHELD_STATE,
      constraints: outcome.judgments.filter((judgment) => judgment.action === 'block' || judgment.action === 'intervene' || judgment.action === 'deny').map((judgment) => judgment.rubric),
      userMessage,
      reason: outcome.reasons.join(' '),
    }),
    settled(sessionId, outcome, withheld) {
      if (outcome.warnings.length > 0) {
        warnSafely(logger, `[panoptes] A response went out with a judge's warning: ${outcome.warnings.join('; ')}`);
        onWarning?.(sessionId);
      }
      if (outcome.decision !== 'deny' || sessionId === undefined) return;
      const note = withheld
        ? `[POLICY CHECK] Your previous response was withheld from the user: ${outcome.message} Answer the user's last message again, within the policy.`
        : `[POLICY CHECK] Your previous response did not pass a policy check: ${outcome.message} Correct it in this response.`;
      notes.delete(sessionId);
      notes.set(sessionId, note);
      if (notes.size > NOTES_LIMIT) notes.delete(notes.keys().next().value!);
    },
    withNote(sessionId, params) {
      const note = sessionId === undefined ? undefined : notes.get(sessionId);
      if (note === undefined) return params;
      notes.delete(sessionId!);
      const converted = toChatMessages(params.prompt);
      return { ...params, prompt: withInterventions(params.prompt, converted, appendToSystem(converted.messages, note)) };
    },
  };
}

/**
 * Response metadata naming the judge's outcome under `panoptes.judge` when a rubric did not simply pass: the decision
 * (`deny`, `ask`, or `allow` with warnings) and one reason per rubric.
 */
export function withJudgeMetadata(metadata: ProviderMetadata | undefined, outcome: JudgedOutcome | undefined): ProviderMetadata | undefined {
  if (outcome === undefined || outcome.reasons.length === 0) return metadata;
  return { ...metadata, panoptes: { ...metadata?.panoptes, judge: { decision: outcome.decision, reasons: outcome.reasons } } };
}
