import type { LanguageModelMiddleware } from 'ai';
import { conversationSessionsOf, InvalidOptionError, isPromiseLike, lazyModelRequest, syncFirst, type Logger, type Monitor } from '../../src/index.js';
import { createFailOpen } from './fail-open.js';
import { classifyingStream, type ClassifyResponse } from './classifying-stream.js';
import type { CallOptions } from './host-types.js';
import { namedSessionIdOf, withSessionMetadata } from './session-id.js';
import { rememberToolCalls } from './tool-call-sessions.js';
import { toAssistantTurn, toChatMessages, withInterventions } from './translate.js';

/** Options of {@link panoptesMiddleware}. */
export interface PanoptesMiddlewareOptions {
  /** The monitor that classifies responses and decides interventions. Share it with `guardTools` and the stop condition. */
  monitor: Monitor;
  /**
   * The session every call through this model belongs to. When absent, each call names its own:
   * `providerOptions.panoptes.sessionId`, then the `x-panoptes-session-id` header; a call that names none continues
   * the session whose recorded history its prompt carries (a new conversation starts a new session, and two
   * conversations never share one once they differ). Per-call values do not override this option.
   * @default undefined
   */
  sessionId?: string;
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
}

/**
 * AI SDK language-model middleware that keeps an agent on its workflow. Before each call it applies the
 * interventions due (guidance, reminders, notes) to this call's prompt only; after it, it classifies the response
 * (streams included, from the finished stream, without delaying a chunk) and moves the session's workflow.
 *
 * A hard block refuses the call: `transformParams` throws the core's `WorkflowViolationError`, which the AI SDK does
 * not retry, so `generateText` rejects with it and `streamText` reports it as an `error` part. Add
 * `panoptesStopCondition` to `stopWhen` to end a tool loop cleanly before that call instead. Panoptes' own failures
 * never fail the call. Each response's `providerMetadata.panoptes.sessionId` names its session.
 * @throws {InvalidOptionError} at construction when `monitor` is not a monitor or `sessionId` is empty.
 * @example
 * const monitor = createMonitor({ workflow: await loadWorkflow('examples/workflows/customer-support.yaml') });
 * const model = wrapLanguageModel({ model: openai('gpt-4o-mini'), middleware: panoptesMiddleware({ monitor }) });
 */
export function panoptesMiddleware({ monitor, sessionId, logger = console, cutLoopingStreams = true }: PanoptesMiddlewareOptions): LanguageModelMiddleware {
  if (typeof monitor?.beforeModel !== 'function' || typeof monitor.afterModel !== 'function') {
    throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass the result of createMonitor().' });
  }
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId === '')) {
    throw new InvalidOptionError({ parameter: 'sessionId', value: sessionId, fix: 'Pass a non-empty string, or leave it out to take the id from each call.' });
  }
  const failOpen = createFailOpen(logger);
  const conversations = conversationSessionsOf(monitor);
  // The session found in transformParams, for wrapGenerate/wrapStream: they see the edited prompt, which carries
  // guidance, and placing it by its conversation again would start another session. The host passes the object on.
  const sessions = new WeakMap<CallOptions, string>();
  const sessionOf = (params: CallOptions) => sessions.get(params) ?? namedSessionIdOf(params, sessionId) ?? conversations.sessionOf(toChatMessages(params.prompt).messages);

  // The monitor is awaited in place, in a `try` of our own, rather than through a fail-open wrapper: a wrapper is an
  // async function and promise more per call, and hops cost far more inside a streaming host than in a tight loop.
  // Sync-first: with the session in memory the monitor answers at once, and nothing is awaited.
  const calls = syncFirst(monitor);
  const classify = async (id: string, content: Parameters<ClassifyResponse>[1], params: CallOptions): Promise<void> => {
    let turn: ReturnType<typeof toAssistantTurn> | undefined;
    try {
      const answer = (turn = toAssistantTurn(content, params.tools?.map((tool) => tool.name)));
      let after: ReturnType<typeof calls.afterModel> | undefined;
      try {
        after = calls.afterModel(id, answer);
      } finally {
        // Synchronously, before the host can run any of the calls: their session, and the monitor's classification,
        // whose preview of each call lets `guardTools` refuse a call before anyone is asked to approve it.
        rememberToolCalls(monitor, id, answer.toolCalls, isPromiseLike(after) ? Promise.resolve(after).catch(() => undefined) : after);
      }
      if (isPromiseLike(after)) await after;
    } catch (error) {
      failOpen.failed('Classifying a response (monitor.afterModel)', error);
    }
    // Once classified: a later request carrying this answer continues the session and finds that step done.
    if (turn) conversations.answered(id, turn);
  };

  return {
    specificationVersion: 'v3',

    transformParams: async function panoptesTransformParams({ params }) {
      // Converted only if something reads it: a call that names its session and has nothing due never does.
      let converted: ReturnType<typeof toChatMessages> | undefined;
      const convert = () => (converted ??= toChatMessages(params.prompt));
      const id = namedSessionIdOf(params, sessionId) ?? conversations.sessionOf(convert().messages);
      let next = params;
      let blocked: Error | undefined;
      try {
        const answer = calls.beforeModel(id, lazyModelRequest(() => convert().messages));
        const before = isPromiseLike(answer) ? await answer : answer;
        if (before.action === 'block') blocked = before.error;
        else if (before.interventions.length > 0) next = { ...params, prompt: withInterventions(params.prompt, convert(), before.messages) };
      } catch (error) {
        failOpen.failed('Applying interventions (monitor.beforeModel)', error);
      }
      if (blocked !== undefined) throw blocked; // outside the try: a block is the monitor's answer, not its failure
      sessions.set(next, id);
      return next;
    },

    wrapGenerate: async function panoptesWrapGenerate({ doGenerate, params }) {
      const id = sessionOf(params);
      const result = await doGenerate();
      await classify(id, result.content, params);
      return { ...result, providerMetadata: withSessionMetadata(result.providerMetadata, id) };
    },

    wrapStream: async function panoptesWrapStream({ doStream, params }) {
      const id = sessionOf(params);
      const result = await doStream();
      const watch = cutLoopingStreams ? monitor.loops?.watchStream() : undefined;
      return { ...result, stream: classifyingStream(result.stream, id, (sid, content) => classify(sid, content, params), watch) };
    },
  };
}
