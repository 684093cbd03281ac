import type { LanguageModelMiddleware } from 'ai';
import {
  andThen,
  appendToSystem,
  assertFactSummaryOption,
  assertOnViolatingText,
  assertSentinelOption,
  FACT_SUMMARY_FAILURE,
  factSummaryBlock,
  attempt,
  conversationSessionsOf,
  InvalidOptionError,
  isPromiseLike,
  lazyModelRequest,
  settleAnswer,
  syncFirst,
  type AfterModelOptions,
  type AfterModelResult,
  type AssistantTurn,
  type Judge,
  type JudgedOutcome,
  type Logger,
  type MaybePromise,
  type Monitor,
  type OnViolatingText,
  type SentinelSource,
  type TextWatch,
  type WithheldResponse,
} from '../../src/index.js';
import { createFailOpen } from './fail-open.js';
import { classifyingStream, type ClassifyResponse, type StreamChecks } from './classifying-stream.js';
import type { CallOptions, GenerateResult, ResponseContent, StreamPart } from './host-types.js';
import { createConversationReview } from './judged-conversation.js';
import { createTurnJudge, withJudgeMetadata, type TurnJudge } from './judged-turn.js';
import { namedSessionIdOf, withSessionMetadata } from './session-id.js';
import { streamedContent } from './stream-state.js';
import { rememberToolCalls } from './tool-call-sessions.js';
import { toAssistantTurn, toChatMessages, withInterventions } from './translate.js';
import { withheldResult } from './withheld.js';

/** The model a stream is regenerated from (the middleware's `model`). */
type StreamingModel = { doStream: (params: CallOptions) => PromiseLike<{ stream: ReadableStream<StreamPart> }> };
/** A response's checks, with the classification the stream runs at its end. */
type ResponseChecks = StreamChecks & { classify: ClassifyResponse };

/** Options of {@link panoptesMiddleware}. Give a monitor, a sentinel, a judge, or several. */
export interface PanoptesMiddlewareOptions {
  /**
   * The monitor that classifies responses and decides interventions. Share it with `guardTools` and the stop
   * condition. Without one (a sentinel only), the middleware only puts the known facts into each call.
   */
  monitor?: Monitor;
  /**
   * The session every call through this model belongs to. When absent, each call names its own:
   * `providerOptions.panoptes.sessionId`, then the `x-panoptes-session-id` header; a call that names none continues
   * the session whose recorded history its prompt carries (a new conversation starts a new session, and two
   * conversations never share one once they differ). Per-call values do not override this option.
   * @default undefined
   */
  sessionId?: string;
  /**
   * The sentinel that guards the tools (the one `guardTools` has): its known facts go into the system prompt of every
   * call. Per-conversation sentinels (`createSentinelSessions`) give each session its own.
   */
  sentinel?: SentinelSource;
  /**
   * Put the sentinel's known facts (`facts.summarize()`, under `[KNOWN FACTS]`) at the end of the first system
   * message of every call (a system message of its own at the front when the prompt has none), read afresh each
   * time. `false` leaves the prompt as the caller built it.
   * @default true when a sentinel is given
   */
  factSummary?: boolean;
  /** Receives the adapter's own failures, once per cause. @default console */
  logger?: Logger;
  /**
   * With a loop detector on the monitor, watch streamed responses as they arrive and cut one short once it starts
   * chanting (`repeated-text`, `repeated-line`): the provider's stream is cancelled, so no more tokens are paid for,
   * and the step ends with finish reason `other` (raw `panoptes-loop`). The response so far is classified as usual
   * and the hint reaches the next call. `false` leaves streams whole (the checks still run on the finished response).
   * @default true
   */
  cutLoopingStreams?: boolean;
  /**
   * What becomes of a response the monitor withholds (one breaking a critical constraint, or one whose intervention
   * is a `block:`): `replace` gives the caller the workflow's user message instead (finish reason `content-filter`,
   * raw `panoptes-withheld`); `regenerate` first calls the model once more with the guidance and gives a compliant
   * second response (or the replacement); `deliver` lets it through, and a critical violation blocks the next call.
   * @default 'replace'
   */
  onViolatingText?: OnViolatingText;
  /**
   * How a streamed response's text is checked while it streams, when the session has responses to withhold. `stream`
   * passes text on at once, checking each delta with the patterns of the states it would be withheld for (on a
   * sliding window), and cuts the stream where one matches: what went before has reached the user, the rest never
   * does, and the replacement ends it. `hold` keeps the response until it is classified, so nothing of a withheld one
   * reaches the user (and `regenerate` can stream the second one instead), at the cost of the first token arriving
   * with the last; past `holdMaxBytes` or `holdMaxMs` it falls back to `stream` (a counted `hold` miss). Text the
   * patterns cannot recognise while it streams (exemplar states) is withheld only with `hold`.
   * @default 'stream'
   */
  textPolicy?: 'stream' | 'hold';
  /** Bytes of text `hold` keeps before it falls back to `stream`. @default 65536 */
  holdMaxBytes?: number;
  /** Milliseconds `hold` keeps a response before it falls back to `stream`. @default 30000 */
  holdMaxMs?: number;
  /**
   * Judges each response's text with the judge's `turn` rubrics (`createJudge`) on the user's last message. Where the
   * middleware still has the response (a `generateText` step; a `streamText` step held by `textPolicy: 'hold'` with a
   * monitor), it is judged before it is returned: a rubric that refuses (`block`, `intervene`, `on_error: deny`)
   * withholds it as `onViolatingText` says (`replace` with `judgeUserMessage`, `regenerate` once with the judge's
   * finding, `deliver`), and the next call's system message tells the model why. A stream that went out as it came
   * is judged when it ends, and a refusal becomes that note on the session's next call. `ask` and `warn` deliver the
   * response, named in `providerMetadata.panoptes.judge` (warnings are logged too).
   *
   * Its `conversation` rubrics judge the session's conversation in the background, every `every_turns` answers (or
   * with the answer a turn rubric warned about), never holding a response; a failing one puts a `[CONVERSATION
   * REVIEW]` note into the session's next call. They need the session: without a monitor, one the call names.
   */
  judge?: Judge;
  /** What the user reads in place of a response the judge withheld. @default "I'm sorry, I can't help with that. Is there anything else I can do for you?" */
  judgeUserMessage?: string;
}

/**
 * AI SDK language-model middleware that keeps an agent on its workflow. Before each call it applies the
 * interventions due (guidance, reminders, notes) to this call's prompt only; after it, it classifies the response
 * (streams included, from the finished stream) and moves the session's workflow. With a `sentinel`, each call's system
 * message also carries the known facts (`factSummary`).
 *
 * A response the monitor withholds (it breaks a critical constraint) never reaches the caller: `onViolatingText` and
 * `textPolicy` say what takes its place and how a stream is checked.
 *
 * A hard block refuses the call: `transformParams` throws the core's `WorkflowViolationError`, which the AI SDK does
 * not retry, so `generateText` rejects with it and `streamText` reports it as an `error` part. Add
 * `panoptesStopCondition` to `stopWhen` to end a tool loop cleanly before that call instead. Panoptes' own failures
 * never fail the call. Each response's `providerMetadata.panoptes.sessionId` names its session.
 * @throws {InvalidOptionError} at construction when neither `monitor` nor `sentinel` is given, `monitor` is not a
 * monitor, or `sessionId` is empty.
 * @example
 * const monitor = createMonitor({ workflow: await loadWorkflow('examples/workflows/customer-support.yaml') });
 * const model = wrapLanguageModel({ model: openai('gpt-4o-mini'), middleware: panoptesMiddleware({ monitor }) });
 */
export function panoptesMiddleware({
  monitor,
  sessionId,
  sentinel,
  factSummary = sentinel !== undefined,
  logger = console,
  cutLoopingStreams = true,
  onViolatingText = 'replace',
  textPolicy = 'stream',
  holdMaxBytes = 65_536,
  holdMaxMs = 30_000,
  judge,
  judgeUserMessage,
}: PanoptesMiddlewareOptions): LanguageModelMiddleware {
  if (monitor === undefined && sentinel === undefined && judge === undefined) throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass a monitor from createMonitor(), a sentinel from createSentinel(), a judge from createJudge(), or several.' });
  if (judge !== undefined && typeof judge?.judgeScope !== 'function') throw new InvalidOptionError({ parameter: 'judge', value: judge, fix: 'Pass the result of createJudge().' });
  if (judgeUserMessage !== undefined && !(typeof judgeUserMessage === 'string' && judgeUserMessage !== '')) throw new InvalidOptionError({ parameter: 'judgeUserMessage', value: judgeUserMessage, fix: 'Pass the text the user reads instead of a withheld response, or leave it out.' });
  if (monitor !== undefined && (typeof monitor?.beforeModel !== 'function' || typeof monitor.afterModel !== 'function')) {
    throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass the result of createMonitor().' });
  }
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId === '')) {
    throw new InvalidOptionError({ parameter: 'sessionId', value: sessionId, fix: 'Pass a non-empty string, or leave it out to take the id from each call.' });
  }
  assertOnViolatingText(onViolatingText);
  assertSentinelOption(sentinel);
  assertFactSummaryOption(factSummary, sentinel);
  if (textPolicy !== 'stream' && textPolicy !== 'hold') throw new InvalidOptionError({ parameter: 'textPolicy', value: textPolicy, fix: "Pass 'stream' (the default) or 'hold'." });
  for (const [parameter, value] of [['holdMaxBytes', holdMaxBytes], ['holdMaxMs', holdMaxMs]] as const) {
    if (!(typeof value === 'number' && value > 0 && value <= 2_147_483_647)) throw new InvalidOptionError({ parameter, value, fix: 'Pass a positive number.' });
  }
  const failOpen = createFailOpen(logger);
  /** The params with the sentinel's facts as they are now at the end of the system text; as they are when there is none to give. */
  const withFacts = (id: string | undefined, params: CallOptions): CallOptions => {
    const block = sentinel && factSummary ? factSummaryBlock(sentinel, id, (error) => failOpen.failed(FACT_SUMMARY_FAILURE, error)) : undefined;
    if (block === undefined) return params;
    const converted = toChatMessages(params.prompt);
    return { ...params, prompt: withInterventions(params.prompt, converted, appendToSystem(converted.messages, block)) };
  };

  // `conversation` rubrics: each answer counts a turn of its session (off the critical path); a due judgment's
  // finding goes into the session's next call. A turn rubric's warning makes them due at once.
  const review = judge === undefined ? undefined : createConversationReview(judge, { logger });
  const turnJudge = judge === undefined ? undefined : createTurnJudge(judge, { userMessage: judgeUserMessage, logger, ...(review ? { onWarning: review.warned } : {}) });
  /** The notes the judge left for the session: a finding about its last answer, a review of the conversation. */
  const withJudgeNotes = (id: string | undefined, params: CallOptions) => (review ? review.withGuidance(id, turnJudge!.withNote(id, params)) : turnJudge ? turnJudge.withNote(id, params) : params);
  /** An answer settled (what the caller gets): a turn of the conversation. Never throws, never waits. */
  const answeredTurn = (id: string | undefined, params: CallOptions, turn: AssistantTurn) => {
    try {
      review?.answered(id, params, turn);
    } catch (error) {
      failOpen.failed('Counting a turn for the conversation judge', error);
    }
  };
  /** Judges a response's text; never rejects (a failure of ours lets the response through, logged once). */
  const judged = async (id: string | undefined, params: CallOptions, content: readonly ResponseContent[]): Promise<JudgedOutcome | undefined> => {
    try {
      return await turnJudge?.judge(id, params.prompt, content);
    } catch (error) {
      failOpen.failed('Judging a response (judgeTurn)', error);
      return undefined;
    }
  };
  const withhold = onViolatingText !== 'deliver';

  // Without a monitor there is nothing to classify or correct: the middleware gives each call the facts, and judges responses.
  if (monitor === undefined) {
    const transformParams = async ({ params }: { params: CallOptions }) => {
      const id = namedSessionIdOf(params, sessionId);
      return withJudgeNotes(id, withFacts(id, params));
    };
    if (turnJudge === undefined) return { specificationVersion: 'v3', transformParams };
    return {
      specificationVersion: 'v3',
      transformParams,
      wrapGenerate: async ({ doGenerate, params, model }) => {
        const id = namedSessionIdOf(params, sessionId);
        const { result, outcome } = await judgedGenerate(id, await doGenerate(), params, (next) => model.doGenerate(next));
        answeredTurn(id, params, toAssistantTurn(result.content, params.tools?.map((tool) => tool.name)));
        return { ...result, providerMetadata: withJudgeMetadata(result.providerMetadata, outcome) };
      },
      wrapStream: async ({ doStream, params }) => {
        const id = namedSessionIdOf(params, sessionId);
        const result = await doStream();
        return {
          ...result,
          stream: judgedAtEnd(result.stream, async (content) => {
            const outcome = await judged(id, params, content);
            if (outcome) turnJudge.settled(id, outcome, false);
            answeredTurn(id, params, toAssistantTurn(content, params.tools?.map((tool) => tool.name)));
          }),
        };
      },
    };
  }

  /**
   * A generated response judged before it is returned: one the judge refuses is withheld (replaced, or asked for once
   * more with the judge's finding when `regenerate`, and that one judged again), or delivered with a note for the next
   * call. `classifySecond`: what the monitor makes of a regenerated response (it may withhold it itself).
   */
  async function judgedGenerate(
    id: string | undefined,
    result: GenerateResult,
    params: CallOptions,
    again: (params: CallOptions) => PromiseLike<GenerateResult>,
    classifySecond?: (second: GenerateResult) => Promise<WithheldResponse | undefined>,
  ): Promise<{ result: GenerateResult; outcome?: JudgedOutcome | undefined; replaced?: boolean }> {
    const outcome = await judged(id, params, result.content);
    if (outcome === undefined) return { result };
    const refused = outcome.decision === 'deny' && withhold;
    turnJudge!.settled(id, outcome, refused);
    if (!refused) return { result, outcome };
    if (onViolatingText === 'regenerate') {
      let second: GenerateResult | undefined;
      try {
        second = await again(turnJudge!.withNote(id, params)); // the note says what was wrong
      } catch (error) {
        failOpen.failed('Regenerating a withheld response', error);
      }
      if (second !== undefined) {
        const byMonitor = await classifySecond?.(second);
        if (byMonitor) return { result: withheldResult(second, byMonitor), outcome, replaced: true };
        const secondOutcome = await judged(id, params, second.content);
        if (secondOutcome === undefined || secondOutcome.decision !== 'deny') {
          if (secondOutcome) turnJudge!.settled(id, secondOutcome, false);
          return { result: second, outcome: secondOutcome };
        }
        return { result: withheldResult(second, turnJudge!.withheld(secondOutcome)), outcome: secondOutcome, replaced: true };
      }
    }
    return { result: withheldResult(result, turnJudge!.withheld(outcome)), outcome, replaced: true };
  }

  const conversations = conversationSessionsOf(monitor);
  // The session found in transformParams, for wrapGenerate/wrapStream: they see the edited prompt, which carries
  // guidance, and placing it by its conversation again would start another session. The host passes the object on.
  const sessions = new WeakMap<CallOptions, string>();
  const sessionOf = (params: CallOptions) => sessions.get(params) ?? namedSessionIdOf(params, sessionId) ?? conversations.sessionOf(toChatMessages(params.prompt).messages);
  const turnOf = (content: readonly ResponseContent[], params: CallOptions) => toAssistantTurn(content, params.tools?.map((tool) => tool.name));

  // The monitor is awaited in place, in a `try` of our own, rather than through a fail-open wrapper: a wrapper is an
  // async function and promise more per call, and hops cost far more inside a streaming host than in a tight loop.
  // Sync-first: with the session in memory the monitor answers at once, and nothing is awaited.
  const calls = syncFirst(monitor);
  // Sync-first too: a response classified at once costs no promise here (a generated one none at all).
  const classify = (id: string, turn: AssistantTurn, options: Pick<AfterModelOptions, 'withhold' | 'regenerated'>): MaybePromise<AfterModelResult | undefined> => {
    const failed = (error: unknown) => (failOpen.failed('Classifying a response (monitor.afterModel)', error), undefined);
    let after: ReturnType<typeof calls.afterModel> | undefined;
    try {
      after = calls.afterModel(id, turn, options);
    } catch (error) {
      return failed(error);
    } finally {
      // Synchronously, before the host can run any of the calls: their session, and the monitor's classification,
      // whose preview of each call lets `guardTools` refuse a call before anyone is asked to approve it.
      rememberToolCalls(monitor, id, turn.toolCalls, isPromiseLike(after) ? Promise.resolve(after).catch(() => undefined) : after);
    }
    return isPromiseLike(after) ? Promise.resolve(after).then((result) => result, failed) : after;
  };
  // Once classified and settled: a later request carrying the answer delivered continues the session and finds that step done.
  const answered = (id: string, turn: AssistantTurn, params: CallOptions) => {
    conversations.answered(id, turn);
    answeredTurn(id, params, turn);
  };

  /**
   * The call's params with the interventions due on it applied (to this call only), or the monitor's block. Sync-first;
   * Panoptes' own failure leaves them as they are. `convert` gives the prompt converted, at most once.
   */
  const withDue = (id: string, params: CallOptions, convert: () => ReturnType<typeof toChatMessages>): MaybePromise<{ next: CallOptions; blocked?: Error }> =>
    attempt(
      () => calls.beforeModel(id, lazyModelRequest(() => convert().messages)),
      (before) => (before.action === 'block' ? { next: params, blocked: before.error } : { next: before.interventions.length > 0 ? { ...params, prompt: withInterventions(params.prompt, convert(), before.messages) } : params }),
      (error) => (failOpen.failed('Applying interventions (monitor.beforeModel)', error), { next: params }),
    );

  /**
   * The call once more for `regenerate`, with the guidance the withheld response scheduled (`beforeModel` takes it);
   * undefined when it is blocked or fails (the first response is replaced then).
   */
  const regenerate = async <Result>(id: string, params: CallOptions, call: (params: CallOptions) => PromiseLike<Result>): Promise<Result | undefined> => {
    let converted: ReturnType<typeof toChatMessages> | undefined;
    const { next, blocked } = await withDue(id, params, () => (converted ??= toChatMessages(params.prompt)));
    if (blocked) return undefined;
    // A response the judge withheld left a note saying what was wrong: the second call reads it (and uses it up).
    const noted = turnJudge ? turnJudge.withNote(id, next) : next;
    sessions.set(noted, id);
    try {
      return await call(noted);
    } catch (error) {
      failOpen.failed('Regenerating a withheld response', error);
      return undefined;
    }
  };

  /** The checks of one streamed response: its classification at the end, and its text while it streams. Sync-first. */
  const streamChecks = (id: string, params: CallOptions, model: StreamingModel, regenerated = false): MaybePromise<ResponseChecks> => {
    const retry = onViolatingText === 'regenerate' && !regenerated ? () => regenerateStream(id, params, model) : undefined;
    // The turn classified, kept for `answered`, which most often records that same content.
    let classified: { content: readonly ResponseContent[]; turn: AssistantTurn } | undefined;
    const classifyFirst: ClassifyResponse = (sid, content, mayWithhold) => {
      classified = { content, turn: turnOf(content, params) };
      return Promise.resolve(andThen(classify(sid, classified.turn, regenerated ? { withhold: mayWithhold, regenerated } : { withhold: mayWithhold }), (result) => result?.withheld));
    };
    // With a judge: a response the monitor lets through is judged; one held (or cut before its text went out) can still
    // be withheld, and a refusal of one that went out becomes a note on the next call.
    const classifyThenJudge: ClassifyResponse = async (sid, content, mayWithhold) => {
      const withheld = await classifyFirst(sid, content, mayWithhold);
      if (withheld) return withheld;
      const outcome = await judged(sid, params, content);
      if (outcome === undefined) return undefined;
      const refused = outcome.decision === 'deny' && withhold && mayWithhold;
      turnJudge!.settled(sid, outcome, refused);
      return refused ? turnJudge!.withheld(outcome) : undefined;
    };
    const checksWith = (watch: TextWatch | undefined): ResponseChecks => ({
      classify: turnJudge ? classifyThenJudge : classifyFirst,
      answered: (content) => answered(id, classified?.content === content ? classified.turn : turnOf(content, params), params),
      ...(cutLoopingStreams && monitor.loops ? { loops: monitor.loops.watchStream() } : {}),
      ...(watch ? { text: { watch, policy: textPolicy, maxBytes: holdMaxBytes, maxMs: holdMaxMs, ...(retry ? { retry } : {}) } } : {}),
    });
    // With a judge and `hold`, the response is held for the judge even when the workflow has nothing to withhold: a
    // watch that recognises nothing, whose overflow (the rest streamed, judged at the end) is logged once.
    const judgeWatch: TextWatch = { states: [], text: () => null, overflowed: (bound) => failOpen.note('judge hold', `A response held for the judge passed its ${bound === 'bytes' ? 'byte' : 'time'} bound; the rest streamed, and a refusal of it becomes a note on the next call.`) };
    const orJudgeWatch = (watch: TextWatch | undefined) => watch ?? (turnJudge && withhold && textPolicy === 'hold' ? judgeWatch : undefined);
    // A monitor of an app's own making (a wrapper written before watchText existed) may lack it: checked at the end only.
    if (!withhold || typeof calls.watchText !== 'function') return checksWith(orJudgeWatch(undefined));
    return attempt(() => calls.watchText(id), (watch) => checksWith(orJudgeWatch(watch)), (error) => (failOpen.failed('Watching streamed text (monitor.watchText)', error), checksWith(orJudgeWatch(undefined))));
  };
  /** The second response of `regenerate`, checked as the first was (but never regenerated again). */
  const regenerateStream = async (id: string, params: CallOptions, model: StreamingModel): Promise<ReadableStream<StreamPart> | undefined> => {
    const result = await regenerate(id, params, (next) => model.doStream(next));
    if (!result) return undefined;
    const { classify: classifySecond, ...checks } = await streamChecks(id, params, model, true);
    return classifyingStream(result.stream, id, classifySecond, checks);
  };

  return {
    specificationVersion: 'v3',

    transformParams: async function panoptesTransformParams({ params }) {
      // Converted only if something reads it: a call that names its session and has nothing due never does.
      let converted: ReturnType<typeof toChatMessages> | undefined;
      const convert = () => (converted ??= toChatMessages(params.prompt));
      const id = namedSessionIdOf(params, sessionId) ?? conversations.sessionOf(convert().messages);
      const due = withDue(id, params, convert);
      const { next, blocked } = isPromiseLike(due) ? await due : due;
      if (blocked !== undefined) throw blocked; // a block is the monitor's answer, not its failure
      // A regenerated call starts from these params, so it carries the same facts (and the judge's note, used up here).
      const sent = withJudgeNotes(id, withFacts(id, next));
      sessions.set(sent, id);
      return sent;
    },

    wrapGenerate: async function panoptesWrapGenerate({ doGenerate, params, model }) {
      const id = sessionOf(params);
      const answerOf = (result: GenerateResult) => ({ result, turn: turnOf(result.content, params) });
      // A response the monitor withholds never leaves this call: replaced, or asked for again (settleAnswer).
      const { answer, replaced } = await settleAnswer(onViolatingText, answerOf(await doGenerate()), {
        classify: ({ turn }, options) => classify(id, turn, options),
        retry: async () => {
          const second = await regenerate(id, params, (next) => model.doGenerate(next));
          return second && answerOf(second);
        },
        replace: ({ result }, withheld) => answerOf(withheldResult(result, withheld)),
      });
      if (turnJudge === undefined || replaced) {
        answered(id, answer.turn, params);
        return { ...answer.result, providerMetadata: withSessionMetadata(answer.result.providerMetadata, id) };
      }
      // What the monitor let through is judged before it is returned.
      const classifySecond = async (second: GenerateResult) => (await classify(id, turnOf(second.content, params), { withhold, regenerated: true }))?.withheld;
      const judgedAnswer = await judgedGenerate(id, answer.result, params, (next) => regenerate(id, next, (again) => model.doGenerate(again)).then((second) => second ?? Promise.reject(new Error('the regenerated call was blocked'))), classifySecond);
      answered(id, judgedAnswer.result === answer.result ? answer.turn : turnOf(judgedAnswer.result.content, params), params);
      return { ...judgedAnswer.result, providerMetadata: withSessionMetadata(withJudgeMetadata(judgedAnswer.result.providerMetadata, judgedAnswer.outcome), id) };
    },

    wrapStream: async function panoptesWrapStream({ doStream, params, model }) {
      const id = sessionOf(params);
      const pending = streamChecks(id, params, model);
      const { classify: classifyStream, ...checks } = isPromiseLike(pending) ? await pending : pending;
      const result = await doStream();
      return { ...result, stream: classifyingStream(result.stream, id, classifyStream, checks) };
    },
  };
}

/**
 * `source` passed on as it comes, and judged (`onEnd`) once it has ended, before the stream closes: the step ends
 * judged, so a refusal's note is there for the next call.
 */
function judgedAtEnd(source: ReadableStream<StreamPart>, onEnd: (content: ResponseContent[]) => Promise<unknown>): ReadableStream<StreamPart> {
  const parts: StreamPart[] = [];
  return source.pipeThrough(
    new TransformStream<StreamPart, StreamPart>({
      transform(part, controller) {
        if (part.type === 'text-start' || part.type === 'text-delta' || part.type === 'tool-call') parts.push(part);
        controller.enqueue(part);
      },
      flush: () => onEnd(streamedContent(parts)).then(() => undefined),
    }),
  );
}
