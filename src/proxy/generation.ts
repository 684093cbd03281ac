/**
 * The monitored call, the same on every generation route (routes/route.ts says what differs): the request is checked,
 * given to the workflow its selector picks, and placed in that workflow's session (named, continued by id, else by its
 * conversation's history); the tool results it carries go to the workflow's rules; it is edited by the interventions
 * due or refused by a hard block, sent upstream, and its answer read by what it is (JSON or server-sent events,
 * whatever its label), every call in it decided (the workflow, then its rules) and the refused ones withheld before
 * the client sees any of it. What cannot be read is withheld whole (fail closed).
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import type { AssistantTurn, ChatMessage } from '../messages/index.js';
import type { Monitor, ToolGuard, ToolGuardVerdict, WithheldResponse } from '../monitor/index.js';
import type { Placement } from '../session/index.js';
import { answerHeaders, isEncoded, kindOf, MAX_NESTING, nestsDeeperThan, readText, sniffBody, type BodyKind } from './answer-body.js';
import { decideCalls, type CheckTurn, type FoundCall } from './answer-calls.js';
import { abortOnClientGone, type ClientGone } from './client-gone.js';
import { DEFAULT_REFUSAL_MESSAGE } from './defaults.js';
import { beforeCall, checkTurn, refusedAll, withheldByBlock, withheldError, type RefusedToolCall } from './enforce.js';
import { errorText, proxyError, sseErrorIn, type ErrorFormat, type ProxyError } from './errors.js';
import { PROXY_METRICS, type ProxyMetrics } from './metrics.js';
import type { NormalisedTarget } from './request-path.js';
import { noteText } from './note-text.js';
import { noteOutcome } from './request-telemetry.js';
import type { AnswerGate, GenerationRoute, ReadAnswer, Refusals, RequestBody } from './routes/route.js';
import { isProxyError, returnedHeaders, upstreamBodyError, type Upstream } from './upstream.js';
import type { JudgeContext, ProxyJudge, TurnVerdict } from './judge/index.js';
import type { SelectionInput, WorkflowPipeline } from './workflows/index.js';

/** The response header that names the session a call was placed in. */
export const SESSION_HEADER = 'x-panoptes-session-id';

/** What the monitored call needs of the proxy around it. */
export interface GenerationOptions {
  /** The workflow a request is checked against (its monitor, placement and rules), picked before its session. */
  select(input: SelectionInput): WorkflowPipeline;
  metrics: ProxyMetrics;
  /** Logs a failure of the proxy's own once per cause. */
  logOnce(cause: string, message: string): void;
  requireSessionId: boolean;
  bodyLimitBytes: number;
  upstreamTimeoutMs: number;
  /** How streamed text is checked when a response could be withheld: watched as it passes, or held (see `ProxyOptions`). */
  textPolicy?: TextPolicy;
  /** What the client's user reads in place of a refused tool call. @default DEFAULT_REFUSAL_MESSAGE */
  refusalMessage?: string;
  /** Judges the calls the workflow and the rules allow, the responses' text and the conversation (every scope). */
  judge?: ProxyJudge;
}

/** `stream`: text passes at once and is cut where it matches; `hold`: text waits for the classification, within bounds. */
export interface TextPolicy {
  mode: 'stream' | 'hold';
  /** Most characters of events held before falling back to `stream`. */
  holdChars: number;
  /** Longest a held event waits before falling back to `stream`, in milliseconds. */
  holdMs: number;
}

/** One request to a generation route: where it goes, and the body's text as the client sent it. */
export interface GenerationRequest {
  target: NormalisedTarget;
  /** The body as sent, so a request the monitor leaves as it is goes upstream byte for byte. */
  raw: string;
  /** The id of the proxy key the caller sent, when the proxy has keys (for selection). */
  keyId?: string | undefined;
  /** Told which workflow serves the request, once it is picked (the request counter labels by it). */
  selected?(pipeline: WorkflowPipeline): void;
}

/**
 * Decides the calls of one answer of a request (`decideCalls`, with the tools it offered), then records the answer as
 * the client receives it (`delivered`); `check` replaces the monitor's check.
 */
type Decide = (calls: readonly FoundCall[], content: string, delivered: (refused: Refusals) => AssistantTurn, id?: string, check?: CheckTurn) => Promise<Map<FoundCall, RefusedToolCall>>;

/** The monitored call, made once per proxy: `generate(route, upstream, request, reply, sent)` serves one request. */
export function createGeneration({ select, metrics: allMetrics, logOnce, requireSessionId, bodyLimitBytes, upstreamTimeoutMs, textPolicy, refusalMessage, judge }: GenerationOptions) {
  const holdText = textPolicy?.mode === 'hold' ? { maxChars: textPolicy.holdChars, maxMs: textPolicy.holdMs } : undefined;
  return async function generate<Body extends RequestBody>(route: GenerationRoute<Body>, upstream: Upstream, request: FastifyRequest, reply: FastifyReply, { target, raw, keyId, selected }: GenerationRequest) {
    const format = route.errors;
    const fail = (error: ProxyError) => sendError(reply, error, format);
    const parsed = request.body;
    const problem = route.problem(parsed as RequestBody);
    if (problem) return fail(problem);
    let body = parsed as Body;
    // Refused, not coerced: an upstream that reads "true" as true streams an answer to a request the proxy reads as not
    // streamed, and guessing which strings a given upstream coerces is the ambiguity to avoid. OpenAI refuses it too.
    if (body.stream != null && typeof body.stream !== 'boolean') {
      return fail(proxyError(400, 'invalid_request_error', 'invalid_stream', `'stream' must be true or false (or left out), not a ${typeof body.stream}.`, 'stream'));
    }
    // The workflow is picked before the session is looked up: each workflow has sessions of its own.
    const pipeline = select({ path: target.path, headers: request.headers, body, keyId });
    selected?.(pipeline);
    const { monitor, conversations, rules } = pipeline;
    const metrics = labelled(allMetrics, pipeline.labels);
    const log = pipeline.labels.workflow === undefined ? logOnce : (cause: string, message: string) => logOnce(`${cause}:${pipeline.id}`, `[workflow ${pipeline.id}] ${message}`);
    const named = route.namedSession(request.headers, body);
    // A continuation's body is sent even when the request names its session: the upstream wants the withheld calls answered.
    const continued = route.continuation ? await continuationOf(route, body) : undefined;
    if (continued) body = continued.body;
    if (!named && !continued?.sessionId && requireSessionId) {
      return fail(proxyError(400, 'invalid_request_error', 'missing_session_id', `This proxy needs every ${route.label} to name its session: send the ${SESSION_HEADER} header (or ${route.namedBy ?? "the 'user' field, or metadata.session_id"}).`));
    }
    // The request as the core's messages, read once for placement and the rules, only when one of them needs it.
    let chat: ChatMessage[] | undefined;
    const messages = () => (chat ??= route.messages(body));
    const placed = named || continued?.sessionId ? undefined : await placeByConversation(conversations, messages(), log);
    const sessionId = named?.sessionId ?? continued?.sessionId ?? placed!.sessionId;
    reply.header(SESSION_HEADER, sessionId);
    if (rules) {
      try {
        rules.observe(sessionId, messages());
      } catch (error) {
        // What this request carried is not in the facts: the rules then refuse what needed it (guards fail closed).
        log('rules-observe-failed', `Reading a request's tool results for the rules failed (${(error as Error)?.message}); its calls were decided without them.`);
      }
    }
    const judging = judge ? await judgeContextOf(judge, monitor, pipeline, sessionId, messages, metrics, log) : undefined;

    const prepared = body;
    const known = rules ? () => rules.factSummary(sessionId, (error) => log('fact-summary-failed', `Summarising the known facts failed (${(error as Error)?.message}); the request went on without them.`)) : undefined;
    const before = await beforeCall(monitor, sessionId, prepared, route, known).catch((error: unknown) => {
      // Fail-open: the monitor's own failure never stops the call (it is counted inside the monitor already).
      log('before-failed', `Preparing a request failed (${(error as Error)?.message}); it was sent unchanged.`);
      return { action: 'proceed' as const, body: prepared, interventions: [] };
    });
    if (before.action === 'block') {
      metrics.add(PROXY_METRICS.blocked, { code: before.error.body.error.code });
      noteOutcome(reply, 'blocked');
      return fail(before.error);
    }
    for (const intervention of before.interventions) metrics.add(PROXY_METRICS.interventions, { strategy: intervention.strategy });

    const abort = abortOnClientGone(reply.raw);
    const streamed = body.stream === true;
    const sent = before.body === parsed ? raw : JSON.stringify(before.body);
    let response: Dispatcher.ResponseData | ProxyError;
    try {
      response = await upstream.send({ method: 'POST', path: target.path, query: target.query, headers: request.headers, body: sent, signal: abort, monitored: true });
    } catch (error) {
      if (!abort.aborted) throw error;
      metrics.add(PROXY_METRICS.clientAborts);
      return reply;
    }
    if (isProxyError(response)) return upstreamFailed(metrics, reply, response, format);
    // The answer is checked with the tools this request offered, so the loop detector counts calls to any other, and
    // a call to a name not offered is refused.
    const offered = route.offered(body);
    // The workflow decides a call first, then the offered names, the rules, and last the judge (the costliest).
    const judged = judge && judging ? judge.guard(judging) : undefined;
    const ruled = (guard?: ToolGuard) => both(rules ? both(guard, rules.guard(sessionId)) : guard, judged);
    const monitorCheck: CheckTurn = (turn, guard) => checkedTurn(monitor, log, sessionId, offered.available ? { ...turn, availableTools: offered.available } : turn, ruled(guard));
    // Text already on its way to the client: the judge's verdict on it reaches the model on the session's next call.
    const check: CheckTurn = !judge?.judgesTurns || !judging
      ? monitorCheck
      : async (turn, guard) => {
          const [refused, verdict] = await Promise.all([monitorCheck(turn, guard), judgedText(judge, judging, turn.content, log)]);
          if (verdict) await noteReasons(monitor, log, sessionId, [`A policy check found a problem with your last response, which the user has already read: ${verdict.message} Put it right in your next answer.`]);
          return refused;
        };
    // An answer read whole before the client sees any of it can be withheld (the monitor says what replaces it).
    let withheld: WithheldResponse | undefined;
    const cutting: CheckTurn = (turn, guard) =>
      checkedTurn(monitor, log, sessionId, offered.available ? { ...turn, availableTools: offered.available } : turn, ruled(guard), (response) => {
        withheld = response;
      });
    // The judge reads the text first: a response it withholds is never classified (the user never reads it), and none
    // of its calls enters a state.
    const withholding: CheckTurn = !judge?.judgesTurns || !judging
      ? cutting
      : async (turn, guard) => {
          const verdict = await judgedText(judge, judging, turn.content, log);
          if (!verdict) return cutting(turn, guard);
          withheld = { state: '', constraints: [], userMessage: refusalMessage ?? DEFAULT_REFUSAL_MESSAGE, reason: verdict.message };
          await noteReasons(monitor, log, sessionId, [`Your last response was withheld from the user: ${verdict.message} Answer again so that it passes.`]);
          return refusedAll(turn.toolCalls, 'the response that made it was withheld by a policy check');
        };
    const decide: Decide = async (found, content, delivered, id, using = check) => {
      const calls = route.noCalls === undefined ? found : found.map((call) => ({ ...call, unreadable: route.noCalls }));
      const refused = shownAs(await decideCalls(calls, content, using, offered.names), refusalMessage);
      // The model reads no result for a call it never got back: its reason reaches it on the next call, noted before the client can send one.
      if (refused.size > 0) await noteRefusals(monitor, log, sessionId, refused);
      // Keyed by the calls as found, which is what the readers and gates take back.
      const byFound = calls === found ? refused : new Map<FoundCall, RefusedToolCall>();
      if (calls !== found) {
        calls.forEach((call, at) => {
          const entry = refused.get(call);
          if (entry) byFound.set(found[at]!, entry);
        });
      }
      const conversing = judge?.judgesConversations === true && judging !== undefined;
      const received = placed || rules || conversing ? delivered(byFound) : undefined;
      if (placed) await recordAnswer(conversations, placed, received!, log);
      // What the user read of this answer: the message a yes in a request that does not carry it answers.
      if (rules) {
        try {
          rules.noteAnswer(sessionId, received!.content);
        } catch (error) {
          log('rules-observe-failed', `Noting an answer for the rules failed (${(error as Error)?.message}); a yes in a request that does not carry it counts for no grounded confirmation.`);
        }
      }
      // The conversation as the user has it now, judged in the background when a conversation rubric is due.
      if (conversing) judgeConversation(judge!, judging!, () => [...messages(), answerMessage(received!)], monitor, log);
      if (id !== undefined && route.answered) await route.answered(id, sessionId, byFound).catch((error: unknown) => log('record-failed', `Recording a response for the requests that continue it failed (${(error as Error)?.message}); they start a session of their own.`));
      return byFound;
    };
    // A streamed request gets a stream whatever the upstream sent (its headers leave at once); any other answer is
    // sniffed first, and goes on as what it is.
    const answer: Answer<Body> = { route, reply, response, sessionId, abort, decide, withholding, cutting, withheld: () => withheld, monitor, metrics, log, judging };
    if (streamed && response.statusCode < 300) return streamAnswer(answer, response.body);
    return jsonAnswer(answer);
  };

  /**
   * An answer to a non-streamed request: read by what it is. JSON is parsed, every call in it decided, refused ones
   * taken out before the client sees it; SSE goes through the stream gate; anything else is withheld (fail closed).
   */
  async function jsonAnswer<Body extends RequestBody>(answer: Answer<Body>) {
    const { route, reply, response, abort, decide, monitor, metrics } = answer;
    let text = '';
    let stream: AsyncIterable<Uint8Array> | undefined;
    try {
      const sniffed = response.statusCode < 300 ? await sniffBody(response.body) : undefined;
      if (sniffed?.kind === 'sse') stream = sniffed.body;
      else text = await readText(sniffed?.body ?? response.body);
    } catch (error) {
      if (abort.aborted) {
        metrics.add(PROXY_METRICS.clientAborts);
        return reply;
      }
      return upstreamFailed(metrics, reply, upstreamBodyError(error, upstreamTimeoutMs), route.errors);
    }
    if (stream) return streamAnswer(answer, stream);
    if (response.statusCode >= 300) {
      // The upstream's own error goes back unchanged, unless it carries calls a client could read (or is compressed,
      // so the proxy cannot tell).
      const status = response.statusCode >= 400 ? response.statusCode : 502;
      if (isEncoded(response.headers)) return upstreamFailed(metrics, reply, unreadable(route, `it came with status ${response.statusCode}, compressed`, status), route.errors);
      const error = errorBodyOf(route, text);
      if (error === undefined) return upstreamFailed(metrics, reply, unreadable(route, `it came with status ${response.statusCode} and carries tool calls`, status), route.errors);
      if (status >= 500) noteOutcome(reply, 'upstream_error');
      return reply.code(response.statusCode).headers(returnedHeaders(response.headers, { keepLength: false })).send(error);
    }
    const read = route.read(text);
    if ('unreadable' in read) return upstreamFailed(metrics, reply, unreadable(route, read.unreadable), route.errors);
    const refused = await decide(read.calls, read.content, deliveredOf(read, answer.withheld), read.id, answer.withholding);
    const held = answer.withheld();
    if (held) {
      const blocked = withheldByBlock(monitor, held);
      metrics.add(PROXY_METRICS.withheldAnswers, { action: blocked ? 'block' : 'replace' });
      noteOutcome(reply, 'withheld');
      if (blocked) return sendError(reply, withheldError(held), route.errors);
      return reply.code(response.statusCode).headers(answerHeaders(response.headers, 'json')).send(read.withheld(held.userMessage).json(new Map()));
    }
    metrics.add(PROXY_METRICS.refusedToolCalls, {}, refused.size);
    if (refused.size > 0) noteOutcome(reply, 'refused');
    return reply.code(response.statusCode).headers(answerHeaders(response.headers, 'json')).send(read.json(refused));
  }

  /**
   * An answer sent as a stream: text passes at once, tool calls wait for the end and their checks (see the route's
   * gate). The body is sniffed once the headers are out: an SSE body (or none) goes through the gate; a JSON one is
   * decided whole and sent as the events of a stream; anything else ends the stream with an error event.
   */
  async function streamAnswer<Body extends RequestBody>({ route, reply, response, sessionId, abort, decide, withholding, cutting, withheld, monitor, metrics, log, judging }: Answer<Body>, body: AsyncIterable<Uint8Array>) {
    reply.hijack();
    const out = reply.raw;
    out.writeHead(response.statusCode, { ...answerHeaders(response.headers, 'sse'), [SESSION_HEADER]: sessionId });
    // The headers go out with the first text, in one packet, when the upstream sent that text with its own headers;
    // else alone on the next turn of the event loop, so the client knows at once that the answer started.
    let wrote = false;
    setImmediate(() => {
      if (!wrote && !out.destroyed) out.flushHeaders();
    });
    // With loop detection on, a response that starts chanting is cut short (docs/loops.md, "Streaming").
    const watch = monitor.loops?.watchStream();
    // With a response the monitor would withhold, its text is watched as it streams, and cut where it matches.
    const watched = await monitor.watchText(sessionId).catch((error: unknown) => {
      log('watch-failed', `Watching a streamed response's text failed (${(error as Error)?.message}); it streamed unwatched.`);
      return undefined;
    });
    // Under `hold`, a response the judge reads is held for it too, with the monitor's watch or without one.
    const textWatch = judge?.judgesTurns && judging && holdText ? judge.holdingWatch(metrics, watched) : watched;
    const gate: AnswerGate = route.gate({ maxHeldChars: bodyLimitBytes, ...(watch ? { watch } : {}), ...(textWatch ? { textWatch, ...(holdText ? { holdText } : {}) } : {}) });
    // Held text that waits past its bound goes out even while the upstream is silent.
    const holdTimer = gate.holding && gate.flushHeld ? setTimeout(() => {
      const now = gate.flushHeld!('time');
      if (now !== undefined && !out.destroyed) {
        out.write(now);
        wrote = true;
      }
    }, holdText!.maxMs) : undefined;
    let parseFailed = false;
    const parser = createParser({
      onEvent: (event) => {
        const now = gate.push(event.data);
        if (now === undefined) return;
        out.write(now);
        wrote = true;
      },
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') parseFailed = true;
      },
      maxBufferSize: bodyLimitBytes,
    });
    const decoder = new TextDecoder();
    let broken = false;
    let kind: BodyKind = 'sse';
    let json = '';
    try {
      const sniffed = await sniffBody(body);
      kind = sniffed.kind;
      if (kind === 'json') json = await readText(sniffed.body);
      else if (kind !== 'other') {
        for await (const piece of sniffed.body) {
          // The events of one piece leave in one write.
          out.cork();
          parser.feed(decoder.decode(piece, { stream: true }));
          out.uncork();
          if (gate.done || parseFailed) break;
        }
      }
    } catch {
      broken = !abort.aborted;
    }
    clearTimeout(holdTimer);
    metrics.add(PROXY_METRICS.malformedChunks, {}, gate.malformed);
    if (abort.aborted) {
      // The client went away: it saw no tool call, so none ran; the answer is not recorded as a step.
      metrics.add(PROXY_METRICS.clientAborts);
      out.destroy();
      return;
    }
    const streamFailed = (error: ProxyError) => {
      metrics.add(PROXY_METRICS.upstreamErrors, { code: error.body.error.code });
      noteOutcome(reply, 'upstream_error');
      return sseErrorIn(error, route.errors);
    };
    if (kind === 'other') {
      response.body.destroy();
      out.end(streamFailed(unreadable(route, 'it is neither JSON nor server-sent events')));
      return;
    }
    if (kind === 'json' && !broken) {
      const read = route.read(json);
      if ('unreadable' in read) return void out.end(streamFailed(unreadable(route, read.unreadable)));
      // Read whole before any of it went out: it can be withheld, as a JSON answer is.
      const refused = await decide(read.calls, read.content, deliveredOf(read, withheld), read.id, withholding);
      const held = withheld();
      if (held) {
        const blocked = withheldByBlock(monitor, held);
        metrics.add(PROXY_METRICS.withheldAnswers, { action: blocked ? 'block' : 'replace' });
        noteOutcome(reply, 'withheld');
        return void out.end(blocked ? sseErrorIn(withheldError(held), route.errors) : read.withheld(held.userMessage).events(new Map()));
      }
      metrics.add(PROXY_METRICS.refusedToolCalls, {}, refused.size);
      if (refused.size > 0) noteOutcome(reply, 'refused');
      out.end(read.events(refused));
      return;
    }
    if (gate.done || parseFailed) response.body.destroy();
    if (broken || parseFailed || gate.end === 'cut-off') {
      await decide([], gate.text, (decided) => gate.delivered(decided));
      metrics.add(PROXY_METRICS.streamsCutOff);
      noteOutcome(reply, 'upstream_error');
      const why = gate.overflow ? `its held text passed ${bodyLimitBytes} bytes, too large to check, so it was withheld` : 'any tool calls in it were withheld';
      out.end(sseErrorIn(proxyError(502, 'upstream_error', 'stream_cut_off', `The upstream stream ended before the response was complete; ${why}.`), route.errors));
      return;
    }
    if (gate.textCut && gate.releaseCut && gate.deliveredCut) {
      // Cut where its text matched a state that withholds it: what was read is classified with `withhold`, and the
      // stream ends with the replacement (or an error event under a `block:` intervention).
      await decide([], gate.text, () => gate.deliveredCut!(withheld()?.userMessage), undefined, cutting);
      const held = withheld();
      const blocked = held !== undefined && withheldByBlock(monitor, held);
      if (held) {
        metrics.add(PROXY_METRICS.withheldAnswers, { action: blocked ? 'block' : 'cut' });
        noteOutcome(reply, 'withheld');
      }
      return void out.end(blocked ? sseErrorIn(withheldError(held), route.errors) : gate.releaseCut(held?.userMessage));
    }
    // Held whole (`hold`): nothing of it went out, so it can be withheld, as a JSON answer is.
    const whole = gate.holding === true && gate.releaseCut !== undefined && gate.deliveredCut !== undefined;
    const delivered = (decided: Refusals) => {
      const held = whole ? withheld() : undefined;
      return held ? gate.deliveredCut!(held.userMessage) : gate.delivered(decided);
    };
    const refused = await decide(gate.calls(), gate.text, delivered, gate.id, gate.overflow ? tooLargeToCheck : whole ? withholding : undefined);
    const held = whole ? withheld() : undefined;
    if (held) {
      const blocked = withheldByBlock(monitor, held);
      metrics.add(PROXY_METRICS.withheldAnswers, { action: blocked ? 'block' : 'replace' });
      noteOutcome(reply, 'withheld');
      return void out.end(blocked ? sseErrorIn(withheldError(held), route.errors) : gate.releaseCut!(held.userMessage));
    }
    metrics.add(PROXY_METRICS.refusedToolCalls, {}, refused.size);
    if (refused.size > 0) noteOutcome(reply, 'refused');
    if (gate.loop) {
      metrics.add(PROXY_METRICS.streamsCutForLoops);
      noteOutcome(reply, 'loop_cut');
    }
    out.end(gate.release(refused));
  }

  /** The continuation of a request that continues an earlier answer by id; a failure to look it up is a session of its own. */
  async function continuationOf<Body extends RequestBody>(route: GenerationRoute<Body>, body: Body) {
    if (!route.continuation) return undefined;
    try {
      return await route.continuation(body);
    } catch (error) {
      logOnce('continuation-failed', `Finding the session of a continued response failed (${(error as Error)?.message}); it ran in a session of its own.`);
      return undefined;
    }
  }

  /** The session of a request that names none, by its conversation's history; a failure starts a session of its own. */
  async function placeByConversation(conversations: WorkflowPipeline['conversations'], messages: ChatMessage[], log: GenerationOptions['logOnce']): Promise<Placement> {
    try {
      return await conversations.place(messages);
    } catch (error) {
      log('placement-failed', `Placing a request by its conversation failed (${(error as Error)?.message}); it ran in a session of its own.`);
      return { sessionId: `conversation-${randomUUID()}`, request: '' };
    }
  }

  /** Records the answer the client receives, so the request that continues the conversation finds its session. */
  async function recordAnswer(conversations: WorkflowPipeline['conversations'], placed: Placement, turn: AssistantTurn, log: GenerationOptions['logOnce']): Promise<void> {
    try {
      await conversations.answered(placed, turn);
    } catch (error) {
      log('placement-failed', `Recording an answer for its conversation failed (${(error as Error)?.message}); the next request starts a session of its own.`);
    }
  }

  /** An answer the proxy could not read, withheld: `why` says what was wrong with it. */
  function unreadable(route: { label: string }, why: string, status = 502): ProxyError {
    logOnce('unreadable-response', `The upstream answered a ${route.label} with a body the proxy could not read; it was withheld.`);
    return proxyError(status, 'upstream_error', 'unreadable_upstream_response', `The upstream's answer could not be read (${why}), so it was withheld: a tool call in it could not have been checked.`);
  }

  /** The pre-emptive checks of a turn; a failure of the checks themselves refuses every call (guards fail closed). */
  async function checkedTurn(monitor: Monitor, log: GenerationOptions['logOnce'], sessionId: string, turn: AssistantTurn, guard?: ToolGuard, onWithheld?: (response: WithheldResponse) => void): Promise<RefusedToolCall[]> {
    try {
      return await checkTurn(monitor, sessionId, turn, guard, onWithheld);
    } catch (error) {
      log('check-failed', `Checking a response failed (${(error as Error)?.message}); its tool calls were withheld.`);
      return refusedAll(turn.toolCalls, 'its policy check failed');
    }
  }

  /** The judge's context of one request: the session (under its workflow), the request's messages, the state when a rubric needs it. */
  async function judgeContextOf(judge: ProxyJudge, monitor: Monitor, pipeline: WorkflowPipeline, sessionId: string, messages: () => ChatMessage[], metrics: ProxyMetrics, log: GenerationOptions['logOnce']): Promise<JudgeContext> {
    const sessionKey = `${pipeline.id}\u0000${sessionId}`;
    try {
      judge.observe(sessionKey, messages());
    } catch (error) {
      log('judge-observe-failed', `Reading a request for the judge's questions failed (${(error as Error)?.message}); a yes in it approved nothing.`);
    }
    // A new (or closed) session starts in the initial state, as the monitor starts it.
    const state = judge.needsState ? await monitor.session(sessionId).then((session) => (session?.workflow.status === 'active' ? session.workflow.state : monitor.workflow.initialState), () => undefined) : undefined;
    return { sessionKey, sessionId, workflow: pipeline.id, messages, state, metrics };
  }

  /** The judge's verdict on a response's text; a failure of the proxy's own is logged and the text passes (the judge's own failures follow on_error). */
  async function judgedText(judge: ProxyJudge, context: JudgeContext, text: string, log: GenerationOptions['logOnce']): Promise<TurnVerdict | undefined> {
    try {
      return await judge.turn(context, text);
    } catch (error) {
      log('judge-failed', `Judging a response failed inside the proxy (${(error as Error)?.message}); it was not judged.`);
      return undefined;
    }
  }

  /**
   * Counts a delivered answer for the conversation rubrics; a judgment that comes due runs in the background and its
   * finding is noted for the session's next call through the monitor (in its store, so any instance serves it).
   */
  function judgeConversation(judge: ProxyJudge, context: JudgeContext, transcript: () => ChatMessage[], monitor: Monitor, log: GenerationOptions['logOnce']): void {
    try {
      judge.conversationTurn(context, transcript, (sessionId, text) => noteReasons(monitor, log, sessionId, [text]));
    } catch (error) {
      log('judge-failed', `Counting an answer for the conversation's rubrics failed inside the proxy (${(error as Error)?.message}); it was not judged.`);
    }
  }

  /** Schedules `reasons` for the session's next call (fail-open: a failure is logged, not raised). `what` names them in the log. */
  async function noteReasons(monitor: Monitor, log: (cause: string, message: string) => void, sessionId: string, reasons: readonly string[], what = 'why a response was judged'): Promise<void> {
    try {
      await monitor.noteRefusals(sessionId, reasons);
    } catch (error) {
      log('note-failed', `Noting ${what} failed (${(error as Error)?.message}); the model was not told on its next call.`);
    }
  }

  /** Schedules the reasons of `refused` for the session's next call, each call's long argument values cut (noteText). */
  function noteRefusals(monitor: Monitor, log: (cause: string, message: string) => void, sessionId: string, refused: ReadonlyMap<FoundCall, RefusedToolCall>): Promise<void> {
    return noteReasons(monitor, log, sessionId, [...refused].map(([call, refusal]) => noteText(refusal.reason, call)), 'why tool calls were refused');
  }

  function upstreamFailed(metrics: ProxyMetrics, reply: FastifyReply, error: ProxyError, format: ErrorFormat) {
    metrics.add(PROXY_METRICS.upstreamErrors, { code: error.body.error.code });
    noteOutcome(reply, 'upstream_error');
    return sendError(reply, error, format);
  }
}

/** What the two answer paths share of one request. */
interface Answer<Body extends RequestBody> {
  route: GenerationRoute<Body>;
  reply: FastifyReply;
  response: Dispatcher.ResponseData;
  sessionId: string;
  abort: ClientGone;
  decide: Decide;
  /** The check of an answer read whole before the client sees it: one that must not reach the user is withheld (the judge reads its text first). */
  withholding: CheckTurn;
  /** The monitor's withholding check alone, for a stream cut where its text matched: the monitor's replacement ends it. */
  cutting: CheckTurn;
  /** The judge's context of the request, when the proxy has a judge. */
  judging: JudgeContext | undefined;
  /** What replaces the answer, once `withholding` withheld it. */
  withheld(): WithheldResponse | undefined;
  /** The monitor of the workflow that serves the request. */
  monitor: Monitor;
  /** The proxy's counters, labelled with that workflow when the proxy serves several. */
  metrics: ProxyMetrics;
  /** Logs once per cause, naming that workflow when the proxy serves several. */
  log: GenerationOptions['logOnce'];
}

/** Counters that add `labels` (after their own) to every series they count. */
function labelled(metrics: ProxyMetrics, labels: Readonly<Record<string, string>>): ProxyMetrics {
  if (Object.keys(labels).length === 0) return metrics;
  return { ...metrics, add: (name, own = {}, amount = 1) => metrics.add(name, { ...own, ...labels }, amount) };
}

/** Two guards in turn: the second is asked only about a call the first allows. */
function both(first: ToolGuard | undefined, second: ToolGuard): ToolGuard;
function both(first: ToolGuard | undefined, second: ToolGuard | undefined): ToolGuard | undefined;
function both(first: ToolGuard | undefined, second: ToolGuard | undefined): ToolGuard | undefined {
  if (!second) return first;
  if (!first) return second;
  return async (call): Promise<ToolGuardVerdict> => {
    const verdict = await first(call);
    return verdict.allowed ? second(call) : verdict;
  };
}

/**
 * The refusals with the user-facing message they are shown as, when one is set: a refusal that brings its own (the
 * question a rule waits on) keeps it, since the user must read the question to answer it.
 */
function shownAs(refused: Map<FoundCall, RefusedToolCall>, message: string | undefined): Map<FoundCall, RefusedToolCall> {
  if (message !== undefined) for (const [call, refusal] of refused) if (refusal.message === undefined) refused.set(call, { ...refusal, message });
  return refused;
}

/** A delivered answer as a message of the conversation. */
function answerMessage(turn: AssistantTurn): ChatMessage {
  return { role: 'assistant', content: turn.content, ...(turn.toolCalls.length > 0 ? { toolCalls: turn.toolCalls } : {}) };
}

/** What the client receives of `read`, as placement records it: the replacement, when the answer was withheld. */
function deliveredOf(read: ReadAnswer, withheld: () => WithheldResponse | undefined) {
  return (refused: Refusals): AssistantTurn => {
    const held = withheld();
    return held ? read.withheld(held.userMessage).delivered(new Map()) : read.delivered(refused);
  };
}

/** Sends one of the proxy's errors in a route's format. */
export function sendError(reply: FastifyReply, error: ProxyError, format: ErrorFormat = 'openai') {
  return reply.code(error.status).header('content-type', 'application/json; charset=utf-8').send(errorText(error, format));
}

/**
 * What goes back of the body of an upstream error (an error status): `undefined` when it carries calls a client could
 * read (a stream, an answer with calls, JSON too deep to look into), so it is withheld; JSON as parsed (written again:
 * a repeated key is read here with the last one winning); anything else unchanged.
 */
export function errorBodyOf(route: { read(text: string): ReadAnswer | { unreadable: string } }, text: string): string | undefined {
  const kind = kindOf(text);
  if (kind === 'sse') return undefined;
  if (kind !== 'json') return text;
  if (nestsDeeperThan(text, MAX_NESTING)) return undefined;
  const read: ReadAnswer | { unreadable: string } = route.read(text);
  if ('unreadable' in read) return text;
  return read.calls.length > 0 ? undefined : read.json(new Map());
}

/** The check of an answer whose held calls outgrew the limit: none can be checked whole, so every one is refused. */
const tooLargeToCheck: CheckTurn = async (turn) => refusedAll(turn.toolCalls, 'its arguments were too large to check');

