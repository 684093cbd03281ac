/**
 * `createProxy`: the OpenAI-compatible proxy on Fastify. `POST /v1/chat/completions` is monitored, streamed or not;
 * every other `/v1/*` route passes through; `GET /healthz` and `GET /metrics` report on the proxy itself. Every
 * request target is normalised once, before routing (request-path.ts), and that one path is used for the key check,
 * the route, the monitor and the upstream URL.
 * @module
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { createParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import { InvalidOptionError } from '../errors/index.js';
import { DEFAULT_BODY_LIMIT_BYTES, DEFAULT_PROXY_HOST, DEFAULT_PROXY_PORT, DEFAULT_UPSTREAM_TIMEOUT_MS } from './defaults.js';
import { offeredToolNames, type AssistantTurn } from '../messages/index.js';
import type { Logger, Monitor, ToolGuard } from '../monitor/index.js';
import { localPlacement, type ConversationPlacement, type Placement } from '../session/index.js';
import { answerHeaders, isEncoded, readText, sniffBody, type BodyKind } from './answer-body.js';
import { decideCalls, offeredNames, type CheckTurn, type FoundCall } from './answer-calls.js';
import { answerText, completionEvents, errorBodyOf, readCompletion, withoutRefusedCalls } from './answer-json.js';
import { limitBody } from './body-limit.js';
import { beforeCall, checkTurn, deliveredTurn, refusedAll, type RefusedToolCall } from './enforce.js';
import { proxyError, sseError, type ProxyError } from './errors.js';
import { createProxyMetrics, PROXY_METRICS, type ProxyMetrics } from './metrics.js';
import type { ChatCompletionRequest } from './openai-types.js';
import { isMonitoredRoute, isRefusedTarget, normaliseTarget, OPEN_PATHS, type NormalisedTarget } from './request-path.js';
import { namedSessionOf } from './session-id.js';
import { StreamGate } from './stream-gate.js';
import { argumentsOf, chatRequestProblem, toChatMessages } from './translate.js';
import { createUpstream, isProxyError, PROXY_KEY_HEADER, returnedHeaders, type Upstream } from './upstream.js';

/**
 * Decides the calls of one answer of this request (`decideCalls`, with the tools it offered): the first choice
 * classified by the monitor and its calls checked, the rest refused on sight; `check` replaces the monitor's check.
 */
type Decide = (calls: readonly FoundCall[], content: string, check?: CheckTurn) => Promise<Map<FoundCall, RefusedToolCall>>;

export { DEFAULT_BODY_LIMIT_BYTES, DEFAULT_PROXY_HOST, DEFAULT_PROXY_PORT, DEFAULT_UPSTREAM_TIMEOUT_MS };

/** The response header that names the session a call was placed in. */
export const SESSION_HEADER = 'x-panoptes-session-id';

/** Options of {@link createProxy}. */
export interface ProxyOptions {
  /** Base URL of the OpenAI-compatible upstream, `/v1` included: `http://127.0.0.1:8000/v1`. Fixed: never taken from a request. */
  upstream: string;
  /** The monitor every chat completion goes through (its workflow, loops and session store). */
  monitor: Monitor;
  /** @default 4000; 0 picks a free port */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /**
   * When set, every request but `GET /healthz` and `GET /metrics` must carry one of these in `x-panoptes-key` or it
   * gets a 401. An empty list is refused at start (pass `undefined` for an open proxy). @default none (open)
   */
  proxyKeys?: readonly string[];
  /**
   * Where a chat completion that names no session (no `x-panoptes-session-id` header, `user` or `metadata` id) is
   * placed: by its conversation's own history, as the in-process adapters do. Pass the Redis store's
   * `conversations()` when several proxies share sessions, so they agree. @default the monitor's own registry
   */
  conversations?: ConversationPlacement;
  /** Refuse (400) a chat completion that names no session, instead of placing it by its conversation. @default false */
  requireSessionId?: boolean;
  /** Largest request body, in bytes; a larger one gets a 413. @default 10485760 (10 MiB) */
  bodyLimitBytes?: number;
  /** Budget for the upstream's headers and for each gap in its body, in milliseconds; past it a 504. @default 300000 */
  upstreamTimeoutMs?: number;
  /** Whether the session store answers; `GET /healthz` says `degraded` when it does not. @default always healthy */
  storeHealthy?: () => boolean;
  /** Receives the proxy's own failures. Never given request content or headers. @default console */
  logger?: Logger;
}

/** A proxy, built and not yet listening. */
export interface Proxy {
  /** Starts listening; resolves with the URL once connections are accepted. */
  listen(): Promise<{ url: string; port: number }>;
  /** Stops accepting connections, lets requests in flight finish, then closes the upstream pool. */
  close(): Promise<void>;
  /** The Fastify instance, for embedding (`inject`, extra routes, hooks). */
  readonly app: FastifyInstance;
  readonly metrics: ProxyMetrics;
}

/**
 * Creates the OpenAI-compatible proxy. Clients change only their base URL to `http://<host>:<port>/v1`.
 * @throws {InvalidOptionError} when `upstream` is not an http(s) URL, or a number option is out of range.
 * @example
 * const monitor = createMonitor({ workflow: await loadWorkflow('support.yaml') });
 * const proxy = createProxy({ upstream: 'http://127.0.0.1:8000/v1', monitor, port: 0 });
 * const { url } = await proxy.listen();
 */
export function createProxy({
  upstream: upstreamUrl,
  monitor,
  port = DEFAULT_PROXY_PORT,
  host = DEFAULT_PROXY_HOST,
  proxyKeys,
  conversations = localPlacement(monitor.conversations),
  requireSessionId = false,
  bodyLimitBytes = DEFAULT_BODY_LIMIT_BYTES,
  upstreamTimeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS,
  storeHealthy = () => true,
  logger = console,
}: ProxyOptions): Proxy {
  assertUpstreamUrl(upstreamUrl);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new InvalidOptionError({ parameter: 'port', value: port, fix: 'Pass a TCP port from 0 to 65535 (0 picks a free port); the default is 4000.' });
  if (!Number.isInteger(bodyLimitBytes) || bodyLimitBytes <= 0) throw new InvalidOptionError({ parameter: 'bodyLimitBytes', value: bodyLimitBytes, fix: 'Pass a positive whole number of bytes; the default is 10485760 (10 MiB).' });
  if (proxyKeys !== undefined && (proxyKeys.length === 0 || proxyKeys.some((key) => typeof key !== 'string' || key.trim() === ''))) {
    throw new InvalidOptionError({ parameter: 'proxyKeys', value: `${proxyKeys.length} key(s), ${proxyKeys.filter((key) => typeof key !== 'string' || key.trim() === '').length} empty`, fix: 'Pass one or more non-empty keys, or leave proxyKeys out for an open proxy (on loopback only).' });
  }
  if (!(upstreamTimeoutMs > 0 && Number.isFinite(upstreamTimeoutMs))) throw new InvalidOptionError({ parameter: 'upstreamTimeoutMs', value: upstreamTimeoutMs, fix: 'Pass a positive number of milliseconds; the default is 300000.' });

  const upstream = createUpstream({ baseUrl: upstreamUrl, timeoutMs: upstreamTimeoutMs });
  const metrics = createProxyMetrics();
  const keys = (proxyKeys ?? []).map((key) => Buffer.from(key));
  const logged = new Set<string>();
  const logOnce = (cause: string, message: string) => {
    if (logged.has(cause)) return;
    logged.add(cause);
    try {
      logger.warn(`[panoptes proxy] ${message}`);
    } catch {
      // a logger that throws changes nothing
    }
  };

  // Fastify's own request logging is off: it would record headers, and Authorization must never be logged. Every
  // request target is normalised before the router sees it; a refused one is routed nowhere (a 400 after the key check).
  const app = Fastify({
    bodyLimit: bodyLimitBytes,
    logger: false,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    rewriteUrl: (raw) => {
      const target = normaliseTarget(raw.url ?? '');
      (raw as TargetRequest)[TARGET] = target;
      return isRefusedTarget(target) ? REFUSED_ROUTE : `${target.path}${target.query}`;
    },
  });
  const targetOf = (request: FastifyRequest) => (request.raw as TargetRequest)[TARGET];

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, _request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return send(reply, tooLarge());
    if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error instanceof SyntaxError) {
      return send(reply, proxyError(400, 'invalid_request_error', 'invalid_json', `The request body is not valid JSON: ${error.message}`));
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return send(reply, proxyError(415, 'invalid_request_error', 'unsupported_media_type', 'Send the chat completion as application/json.'));
    logOnce('internal', `A request failed inside the proxy: ${error.message}`);
    return send(reply, proxyError(500, 'upstream_error', 'proxy_internal_error', 'The proxy failed on this request.'));
  });
  app.setNotFoundHandler((request, reply) => {
    const target = targetOf(request);
    if (target && isRefusedTarget(target)) return send(reply, proxyError(400, 'invalid_request_error', 'invalid_path', `The request path was refused: ${target.refused}.`));
    return send(reply, proxyError(404, 'invalid_request_error', 'not_found', `No route ${request.method} ${target?.path ?? ''}: the proxy serves /v1/* (passed to the upstream), /healthz and /metrics.`));
  });

  // Hooks in callback style: on every request, an async hook would cost a promise more. The key is checked before
  // anything else is done with the request, on every path but the proxy's own two, including paths that lead nowhere.
  if (keys.length > 0) {
    app.addHook('onRequest', (request, reply, done) => {
      const target = targetOf(request);
      const open = request.method === 'GET' && target !== undefined && !isRefusedTarget(target) && OPEN_PATHS.has(target.path);
      const given = request.headers[PROXY_KEY_HEADER];
      if (open || (typeof given === 'string' && keys.some((key) => safeEqual(key, given)))) return done();
      void send(reply, proxyError(401, 'authentication_error', 'invalid_proxy_key', `Missing or unknown proxy key: send one of the proxy's keys in the ${PROXY_KEY_HEADER} header.`));
    });
  }
  // A body over the limit is refused from its Content-Length, before a byte of it is read.
  app.addHook('onRequest', (request, reply, done) => {
    if (!(Number(request.headers['content-length']) > bodyLimitBytes)) return done();
    void send(reply, tooLarge());
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unknown';
    metrics.add(PROXY_METRICS.requests, { route: route.startsWith('/v1/*') ? 'pass-through' : route, status: String(reply.statusCode) });
    done();
  });

  app.get('/healthz', async (_request, reply) => {
    const healthy = safeHealth(storeHealthy);
    return reply.send({ status: healthy ? 'ok' : 'degraded', store: healthy ? 'ok' : 'degraded', workflow: monitor.workflow.name });
  });

  app.get('/metrics', async (_request, reply) => {
    const misses = Object.entries(monitor.misses()).map(([cause, value]) => ({ name: PROXY_METRICS.misses, type: 'counter' as const, labels: { cause }, value: value ?? 0 }));
    reply.header('content-type', 'text/plain; version=0.0.4');
    return reply.send(metrics.render([...misses, { name: PROXY_METRICS.storeUp, type: 'gauge', value: safeHealth(storeHealthy) ? 1 : 0 }]));
  });

  // The chat route's JSON parser (Fastify's own, with its prototype-poisoning checks) keeps the body's text too: a
  // request the monitor leaves as it is goes upstream as the client sent it, without serialising it again.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.decorateRequest(RAW_BODY, '');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    (request as RawBodyRequest)[RAW_BODY] = text as string;
    parseJson(request, text as string, done);
  });
  app.post('/v1/chat/completions', (request, reply) => chatCompletions(request, reply));

  // Every other /v1 route, body and answer streamed through unread: raw bodies, whatever their type.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.all('/v1/*', (request, reply) => passThrough(request, reply));
  });

  function tooLarge(): ProxyError {
    return proxyError(413, 'invalid_request_error', 'request_too_large', `The request body is larger than ${bodyLimitBytes} bytes, the proxy's limit.`);
  }

  async function passThrough(request: FastifyRequest, reply: FastifyReply) {
    const { path, query } = targetOf(request) as NormalisedTarget;
    // Another method on a monitored route would reach an upstream that may generate on it too, unmonitored.
    if (isMonitoredRoute(path)) {
      return send(reply.header('allow', 'POST'), proxyError(405, 'invalid_request_error', 'method_not_allowed', `${path} takes POST only through the proxy, which monitors it.`));
    }
    const abort = abortOnClientGone(reply.raw);
    const body = request.body === undefined ? undefined : limitBody(request.body as Readable, bodyLimitBytes);
    let response: Dispatcher.ResponseData | ProxyError;
    try {
      response = await upstream.send({ method: request.method, path, query, headers: request.headers, body: body?.stream ?? null, signal: abort, monitored: false });
    } catch (error) {
      if (!abort.aborted) throw error;
      metrics.add(PROXY_METRICS.clientAborts);
      return reply;
    }
    if (body?.exceeded) return send(reply, tooLarge());
    if (isProxyError(response)) return upstreamFailed(reply, response);
    return reply.code(response.statusCode).headers(returnedHeaders(response.headers, { keepLength: true })).send(response.body);
  }

  async function chatCompletions(request: FastifyRequest, reply: FastifyReply) {
    const problem = chatRequestProblem(request.body);
    if (problem) return send(reply, proxyError(400, 'invalid_request_error', 'invalid_chat_request', `Not a chat completion request: ${problem}.`, 'messages'));
    const body = request.body as ChatCompletionRequest;
    if (body.n !== undefined && body.n !== null && body.n !== 1) {
      return send(reply, proxyError(400, 'invalid_request_error', 'unsupported_n', 'The proxy monitors one choice per call: send n = 1 (or leave it out).', 'n'));
    }
    // Refused, not coerced: an upstream that reads "true" as true streams an answer to a request the proxy reads as not
    // streamed, and guessing which strings a given upstream coerces is the ambiguity to avoid. OpenAI refuses it too.
    if (body.stream != null && typeof body.stream !== 'boolean') {
      return send(reply, proxyError(400, 'invalid_request_error', 'invalid_stream', `'stream' must be true or false (or left out), not a ${typeof body.stream}.`, 'stream'));
    }
    const named = namedSessionOf(request.headers, body);
    if (!named && requireSessionId) {
      return send(reply, proxyError(400, 'invalid_request_error', 'missing_session_id', `This proxy needs every chat completion to name its session: send the ${SESSION_HEADER} header (or the 'user' field, or metadata.session_id).`));
    }
    const placed = named ? undefined : await placeByConversation(body);
    const sessionId = named?.sessionId ?? placed!.sessionId;
    reply.header(SESSION_HEADER, sessionId);

    const before = await beforeCall(monitor, sessionId, body).catch((error: unknown) => {
      // Fail-open: the monitor's own failure never stops the call (it is counted inside the monitor already).
      logOnce('before-failed', `Preparing a request failed (${(error as Error)?.message}); it was sent unchanged.`);
      return { action: 'proceed' as const, body, interventions: [] };
    });
    if (before.action === 'block') {
      metrics.add(PROXY_METRICS.blocked, { code: before.error.body.error.code });
      return send(reply, before.error);
    }
    for (const intervention of before.interventions) metrics.add(PROXY_METRICS.interventions, { strategy: intervention.strategy });

    const abort = abortOnClientGone(reply.raw);
    const streamed = body.stream === true;
    const sent = before.body === body ? (request as RawBodyRequest)[RAW_BODY] : JSON.stringify(before.body);
    let response: Dispatcher.ResponseData | ProxyError;
    try {
      const { path, query } = targetOf(request) as NormalisedTarget;
      response = await upstream.send({ method: 'POST', path, query, headers: request.headers, body: sent, signal: abort, monitored: true });
    } catch (error) {
      if (!abort.aborted) throw error;
      metrics.add(PROXY_METRICS.clientAborts);
      return reply;
    }
    if (isProxyError(response)) return upstreamFailed(reply, response);
    // The answer is checked with the tools this request offered, so the loop detector counts calls to any other, and
    // a call to a name not offered is refused.
    const offered = offeredToolNames(body.tools);
    const check: CheckTurn = (turn, guard) => checkedTurn(sessionId, offered ? { ...turn, availableTools: offered } : turn, guard);
    const names = offeredNames(body);
    const decide: Decide = async (calls, content, using = check) => {
      const refused = await decideCalls(calls, content, using, names);
      if (placed) await recordAnswer(placed, firstChoiceDelivered(calls, content, refused));
      return refused;
    };
    // A streamed request gets a stream whatever the upstream sent (its headers leave at once); any other answer is
    // sniffed first, and goes on as what it is.
    if (streamed && response.statusCode < 300) return streamCompletion(reply, response, response.body, sessionId, abort, decide);
    return completion(reply, response, sessionId, abort, decide);
  }

  /**
   * An answer to a non-streamed request: read by what it is. JSON is parsed, every call in it decided, refused ones
   * taken out before the client sees it; SSE goes through the stream gate; anything else is withheld (fail closed).
   */
  async function completion(reply: FastifyReply, response: Dispatcher.ResponseData, sessionId: string, abort: ClientGone, decide: Decide) {
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
      return upstreamFailed(reply, upstreamBodyError(error, upstreamTimeoutMs));
    }
    if (stream) return streamCompletion(reply, response, stream, sessionId, abort, decide);
    if (response.statusCode >= 300) {
      // The upstream's own error goes back unchanged, unless it carries calls a client could read (or is compressed,
      // so the proxy cannot tell).
      const status = response.statusCode >= 400 ? response.statusCode : 502;
      if (isEncoded(response.headers)) return upstreamFailed(reply, unreadable(`it came with status ${response.statusCode}, compressed`, status));
      const error = errorBodyOf(text);
      if (error === undefined) return upstreamFailed(reply, unreadable(`it came with status ${response.statusCode} and carries tool calls`, status));
      return reply.code(response.statusCode).headers(returnedHeaders(response.headers, { keepLength: false })).send(error);
    }
    const read = readCompletion(text);
    if ('unreadable' in read) return upstreamFailed(reply, unreadable(read.unreadable));
    const refused = await decide(read.calls, read.content);
    const headers = answerHeaders(response.headers, 'json');
    metrics.add(PROXY_METRICS.refusedToolCalls, {}, refused.size);
    return reply.code(response.statusCode).headers(headers).send(answerText(refused.size === 0 ? read.completion : withoutRefusedCalls(read, refused)));
  }

  /**
   * An answer sent as a stream: text passes at once, tool calls wait for the end and their checks (see StreamGate).
   * The body is sniffed once the headers are out: an SSE body (or none) goes through the gate; a JSON one is decided
   * whole and sent as the events of a stream; anything else ends the stream with an error event.
   */
  async function streamCompletion(reply: FastifyReply, response: Dispatcher.ResponseData, body: AsyncIterable<Uint8Array>, sessionId: string, abort: ClientGone, decide: Decide) {
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
    const gate = new StreamGate({ maxHeldChars: bodyLimitBytes, ...(watch ? { watch } : {}) });
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
    metrics.add(PROXY_METRICS.malformedChunks, {}, gate.malformed);
    if (abort.aborted) {
      // The client went away: it saw no tool call, so none ran; the answer is not recorded as a step.
      metrics.add(PROXY_METRICS.clientAborts);
      out.destroy();
      return;
    }
    if (kind === 'other') {
      response.body.destroy();
      out.end(streamFailed(unreadable('it is neither JSON nor server-sent events')));
      return;
    }
    if (kind === 'json' && !broken) {
      const read = readCompletion(json);
      if ('unreadable' in read) return void out.end(streamFailed(unreadable(read.unreadable)));
      const refused = await decide(read.calls, read.content);
      metrics.add(PROXY_METRICS.refusedToolCalls, {}, refused.size);
      out.end(completionEvents(refused.size === 0 ? read.completion : withoutRefusedCalls(read, refused)));
      return;
    }
    if (gate.done || parseFailed) response.body.destroy();
    if (broken || parseFailed || gate.end === 'cut-off') {
      await decide([], gate.text);
      metrics.add(PROXY_METRICS.streamsCutOff);
      out.end(sseError(proxyError(502, 'upstream_error', 'stream_cut_off', 'The upstream stream ended before the response was complete; any tool calls in it were withheld.')));
      return;
    }
    const refused = await decide(gate.calls(), gate.text, gate.overflow ? tooLargeToCheck : undefined);
    metrics.add(PROXY_METRICS.refusedToolCalls, {}, refused.size);
    if (gate.loop) metrics.add(PROXY_METRICS.streamsCutForLoops);
    out.end(gate.release(refused));
  }

  /** The session of a request that names none, by its conversation's history; a failure starts a session of its own. */
  async function placeByConversation(body: ChatCompletionRequest): Promise<Placement> {
    try {
      return await conversations.place(toChatMessages(body.messages));
    } catch (error) {
      logOnce('placement-failed', `Placing a request by its conversation failed (${(error as Error)?.message}); it ran in a session of its own.`);
      return { sessionId: `conversation-${randomUUID()}`, request: '' };
    }
  }

  /** Records the answer the client receives, so the request that continues the conversation finds its session. */
  async function recordAnswer(placed: Placement, turn: AssistantTurn): Promise<void> {
    try {
      await conversations.answered(placed, turn);
    } catch (error) {
      logOnce('placement-failed', `Recording an answer for its conversation failed (${(error as Error)?.message}); the next request starts a session of its own.`);
    }
  }

  /** An answer the proxy could not read, withheld: `why` says what was wrong with it. */
  function unreadable(why: string, status = 502): ProxyError {
    logOnce('unreadable-response', 'The upstream answered a chat completion with a body the proxy could not read; it was withheld.');
    return proxyError(status, 'upstream_error', 'unreadable_upstream_response', `The upstream's answer could not be read (${why}), so it was withheld: a tool call in it could not have been checked.`);
  }

  /** The error event that ends a stream whose answer was withheld, counted as an upstream error. */
  function streamFailed(error: ProxyError): string {
    metrics.add(PROXY_METRICS.upstreamErrors, { code: error.body.error.code });
    return sseError(error);
  }

  /** The pre-emptive checks of a turn; a failure of the checks themselves refuses every call (guards fail closed). */
  async function checkedTurn(sessionId: string, turn: AssistantTurn, guard?: ToolGuard): Promise<RefusedToolCall[]> {
    try {
      return await checkTurn(monitor, sessionId, turn, guard);
    } catch (error) {
      logOnce('check-failed', `Checking a response failed (${(error as Error)?.message}); its tool calls were withheld.`);
      return refusedAll(turn.toolCalls, 'its policy check failed');
    }
  }

  function upstreamFailed(reply: FastifyReply, error: ProxyError) {
    metrics.add(PROXY_METRICS.upstreamErrors, { code: error.body.error.code });
    return send(reply, error);
  }

  return {
    app,
    metrics,
    async listen() {
      await app.listen({ port, host });
      const address = app.server.address();
      const boundPort = typeof address === 'object' && address !== null ? address.port : port;
      return { url: `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`, port: boundPort };
    },
    async close() {
      await app.close();
      await upstream.close();
    },
  };
}

function send(reply: FastifyReply, error: ProxyError) {
  return reply.code(error.status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(error.body));
}

/**
 * The first choice as the client receives it, for placing the conversation's next request: its text with the refusal
 * text after it, and the calls left (see `deliveredTurn`).
 */
function firstChoiceDelivered(calls: readonly FoundCall[], content: string, refused: ReadonlyMap<FoundCall, RefusedToolCall>): AssistantTurn {
  const first = calls.filter((call) => call.choice === 0);
  const toolCalls = first.map((call) => ({ ...(call.id === undefined ? {} : { id: call.id }), name: typeof call.name === 'string' ? call.name : '', args: argumentsOf(call.arguments) }));
  return deliveredTurn({ content, toolCalls }, first.flatMap((call) => (refused.has(call) ? [refused.get(call)!] : [])));
}

/** The check of an answer whose held calls outgrew the limit: none can be checked whole, so every one is refused. */
const tooLargeToCheck: CheckTurn = async (turn) => refusedAll(turn.toolCalls, 'its arguments were too large to check');

/** The raw request property that holds its normalised target, set before routing. */
const TARGET = Symbol('panoptes.target');
type TargetRequest = FastifyRequest['raw'] & { [TARGET]?: NormalisedTarget | { refused: string } };
/** Where a refused target is routed: nowhere, so the not-found handler answers it with the reason (after the key check). */
const REFUSED_ROUTE = '/';

/** The request property that holds a chat request's body as the client sent it. */
const RAW_BODY = 'panoptesRawBody';
type RawBodyRequest = FastifyRequest & { [RAW_BODY]: string };

/**
 * The signal that aborts the upstream request when the client goes away: an EventEmitter, which undici takes as a
 * signal, since an AbortController (an EventTarget) costs several times more to make and to listen to, on every
 * request, for an abort that rarely comes.
 */
class ClientGone extends EventEmitter {
  aborted = false;
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}

/** Aborts the upstream request when the client's connection closes before its answer was sent. */
function abortOnClientGone(response: ServerResponse): ClientGone {
  const gone = new ClientGone();
  response.once('close', () => {
    if (!response.writableFinished) gone.abort();
  });
  return gone;
}

function upstreamBodyError(error: unknown, timeoutMs: number): ProxyError {
  const code = (error as { code?: unknown })?.code;
  if (code === 'UND_ERR_BODY_TIMEOUT') return proxyError(504, 'upstream_error', 'upstream_timeout', `The upstream model server did not answer within ${timeoutMs} ms.`);
  return proxyError(502, 'upstream_error', 'upstream_unavailable', 'The upstream model server broke off its answer.');
}

function safeEqual(key: Buffer, given: string): boolean {
  const candidate = Buffer.from(given);
  return candidate.length === key.length && timingSafeEqual(candidate, key);
}

function safeHealth(storeHealthy: () => boolean): boolean {
  try {
    return storeHealthy();
  } catch {
    return false;
  }
}

function assertUpstreamUrl(value: unknown): asserts value is string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new InvalidOptionError({ parameter: 'upstream', value, fix: 'Pass the base URL of an OpenAI-compatible API, /v1 included, e.g. http://127.0.0.1:8000/v1.' });
  }
}

export type { Upstream };
