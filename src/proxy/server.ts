/**
 * `createProxy`: the OpenAI-compatible proxy on Fastify. The generation routes are monitored, streamed or not:
 * `POST /v1/chat/completions`, `/v1/completions` and `/v1/responses`, and `POST /v1/messages` (Anthropic) when an
 * Anthropic upstream is configured; other `/v1/*` routes pass through only when listed in `passthrough`; `GET /livez`,
 * `/readyz`, `/healthz` and `/metrics` report on the proxy itself. Every request target is normalised once, before
 * routing (request-path.ts), and that one path is used for the key check, the route, the monitor and the upstream URL. A
 * generation request is served by the default workflow or another whose selector it matches (workflows/), each with
 * its monitor, sessions and optional rulebase (rules/).
 * @module
 */
import { timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Meter, Tracer } from '@opentelemetry/api';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { InvalidOptionError } from '../errors/index.js';
import { isWorkflowId } from '../workflow-choice/index.js';
import { DEFAULT_BODY_LIMIT_BYTES, DEFAULT_HOLD_TEXT_CHARS, DEFAULT_HOLD_TEXT_MS, DEFAULT_PROXY_HOST, DEFAULT_PROXY_PORT, DEFAULT_REFUSAL_MESSAGE, DEFAULT_UPSTREAM_TIMEOUT_MS } from './defaults.js';
import type { Logger, Monitor } from '../monitor/index.js';
import { localPlacement, type ConversationPlacement } from '../session/index.js';
import { limitBody } from './body-limit.js';
import { abortOnClientGone } from './client-gone.js';
import { proxyError, type ErrorFormat, type ProxyError } from './errors.js';
import { createGeneration, SESSION_HEADER, sendError } from './generation.js';
import { createProxyMetrics, PROXY_METRICS, type ProxyMetrics } from './metrics.js';
import { createRateLimit, type RateLimitSettings } from './rate-limit.js';
import { noteOutcome, recordRequests } from './request-telemetry.js';
import { registerInfoRoute } from './info.js';
import { isMonitoredRoute, isPassedThrough, isRefusedTarget, isUnderRoute, normalisePrefix, normaliseTarget, OPEN_PATHS, type NormalisedTarget } from './request-path.js';
import { messagesRoute } from './routes/anthropic/route.js';
import { chatRoute } from './routes/chat.js';
import { completionsRoute } from './routes/completions/route.js';
import { memoryResponseRecords, type ResponseRecords } from './routes/responses/response-records.js';
import { responsesRoute } from './routes/responses/route.js';
import type { GenerationRoute, RequestBody } from './routes/route.js';
import { createUpstream, isProxyError, PROXY_KEY_HEADER, returnedHeaders, type Upstream } from './upstream.js';
import type { ProxyRules } from './rules/index.js';
import type { Judge } from '../judge/index.js';
import { createProxyJudge } from './judge/index.js';
import { MAX_SERVE_JUDGE_TIMEOUT_MS } from './config/judge.js';
import { createSelection, proxyKeyId, type SelectedWorkflow, type WorkflowPipeline, type WorkflowSelector } from './workflows/index.js';

export { DEFAULT_BODY_LIMIT_BYTES, DEFAULT_PROXY_HOST, DEFAULT_PROXY_PORT, DEFAULT_UPSTREAM_TIMEOUT_MS };

export { SESSION_HEADER };

/** Options of {@link createProxy}. */
export interface ProxyOptions {
  /** Base URL of the OpenAI-compatible upstream, `/v1` included: `http://127.0.0.1:8000/v1`. Fixed: never taken from a request. */
  upstream: string;
  /**
   * Base URL of an Anthropic-compatible upstream, `/v1` included (`https://api.anthropic.com/v1`): `POST /v1/messages`
   * is monitored and sent there (and pass-through routes under `/v1/messages/`). Without it, `/v1/messages` is refused
   * (404 `anthropic_upstream_not_set`). Fixed: never taken from a request. @default none
   */
  anthropicUpstream?: string;
  /**
   * Path prefixes passed to the upstream unmonitored, by whole segments (`/v1/models`, `/v1/embeddings`; `/v1` for
   * every route). A path under a generation route (`/v1/responses/{id}`) passes only by a prefix that names that route.
   * Any other route is refused (404 `route_not_enabled`). @default none
   */
  passthrough?: readonly string[];
  /**
   * Where the Responses API's responses are recorded, for the requests that continue them by `previous_response_id`:
   * pass the Redis store's `responses()` when several proxies share sessions. @default in this process
   */
  responseRecords?: ResponseRecords;
  /** The monitor every generation call goes through (its workflow, loops and session store): the default workflow's. */
  monitor: Monitor;
  /**
   * A rulebase for the default workflow (`createProxyRules`): the sentinel decides each tool call the workflow allows,
   * from the facts the requests carry (results of the calls this proxy let through, the user's words). @default none
   */
  rules?: ProxyRules;
  /** The id the default workflow is logged, labelled and selected by. @default 'default' */
  workflowId?: string;
  /**
   * Other workflows, each picked by its selector (the first that matches a request, in order); a request no selector
   * matches goes to the default (`monitor`). Each has sessions of its own: the same session id names a different
   * session under each workflow. With any, metrics carry a `workflow` label. @default none
   */
  workflows?: readonly ProxyWorkflow[];
  /** @default 4100 (LiteLLM, a common upstream, takes 4000); 0 picks a free port */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /**
   * When set, every request but `GET /livez`, `/readyz`, `/healthz` and `/metrics` must carry one of these in
   * `x-panoptes-key` or it gets a 401. An empty list is refused at start (pass `undefined` for an open proxy).
   * @default none (open)
   */
  proxyKeys?: readonly string[];
  /**
   * Where a call that names no session (no `x-panoptes-session-id` header, `user` or `metadata` id) is placed: by its conversation's own history, as the in-process adapters do. Pass the Redis store's
   * `conversations()` when several proxies share sessions, so they agree. @default the monitor's own registry
   */
  conversations?: ConversationPlacement;
  /** Refuse (400) a call that names no session, instead of placing it by its conversation. @default false */
  requireSessionId?: boolean;
  /** Largest request body, in bytes; a larger one gets a 413. @default 10485760 (10 MiB) */
  bodyLimitBytes?: number;
  /** Budget for the upstream's headers and for each gap in its body, in milliseconds; past it a 504. @default 300000 */
  upstreamTimeoutMs?: number;
  /**
   * How a streamed response's text is checked when the session has a response to withhold (a critical constraint, or
   * a `block:` intervention): `stream` passes each delta at once, watching it with the patterns of the states it
   * would be withheld for, and cuts the stream where one matches, ending it with the replacement; `hold` keeps the
   * text until the response is classified, so nothing of a withheld one goes out, unless it passes
   * `holdTextChars` or `holdTextMs` (then it streams as with `stream`, and a miss is counted). @default 'stream'
   */
  textPolicy?: 'stream' | 'hold';
  /** Most characters of events held under `textPolicy: 'hold'`. @default 65536 */
  holdTextChars?: number;
  /** Longest text is held under `textPolicy: 'hold'`, in milliseconds. @default 10000 */
  holdTextMs?: number;
  /**
   * What the client's user reads in place of a tool call the proxy refused (a chat UI shows it). Say nothing of rules
   * here: the reason, written for the model, reaches it as guidance on the session's next call.
   * @default "I can't do that."
   */
  refusalMessage?: string;
  /**
   * A judge (`createJudge`) whose rubrics the proxy applies on every workflow: `tool_call` rubrics decide each call the
   * workflow and the rules allow, before the client gets the answer (deny: refused as any refusal; ask: the user reads
   * a question, and a plain yes approves that call); `turn` rubrics judge a response's text, withheld (replaced by
   * `refusalMessage`) when the answer is read whole or held (`textPolicy: 'hold'`), else told to the model on the
   * session's next call; `conversation` rubrics judge a session's transcript in the background after the answers it
   * is delivered (every `every_turns`, or after a warning), their finding noted for its next call. Counted in
   * `panoptes_proxy_judgments_total` and `panoptes_proxy_judge_misses_total`.
   * @default none
   */
  judge?: Judge;
  /** Whether the session store answers: `GET /healthz` says `degraded` and `GET /readyz` 503 when it does not. @default always healthy */
  storeHealthy?: () => boolean;
  /**
   * Whether `GET /readyz` answers 200 while the session store does not answer (the proxy then serves fail-open, sessions
   * not shared). @default false: 503 until the store answers
   */
  readyWhenDegraded?: boolean;
  /**
   * At most `max` requests per `windowMs` for each proxy key (each client address when the proxy is open); a request
   * over the limit gets a 429 with `retry-after`. Needs `@fastify/rate-limit` installed. @default no limit
   */
  rateLimit?: RateLimitSettings;
  /** Where the request spans go (each the parent of the monitor's spans for that request). @default the global tracer provider's */
  tracer?: Tracer;
  /** Where `http.server.request.duration` is recorded besides `GET /metrics`. @default nowhere */
  meter?: Meter;
  /** Receives the proxy's own failures. Never given request content or headers. @default console */
  logger?: Logger;
}

/** A workflow a proxy serves beside its default one, and the requests that go to it. */
export interface ProxyWorkflow {
  id: string;
  /** Which requests it serves: every condition given must hold. */
  select: WorkflowSelector;
  monitor: Monitor;
  rules?: ProxyRules;
  /** Where a request of this workflow that names no session is placed. @default the monitor's own registry */
  conversations?: ConversationPlacement;
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
 * @throws {InvalidOptionError} when `upstream` (or `anthropicUpstream`) is not an http(s) URL, a `passthrough` prefix is
 * no path under /v1, or a number option is out of range.
 * @example
 * const monitor = createMonitor({ workflow: await loadWorkflow('support.yaml') });
 * const proxy = createProxy({ upstream: 'http://127.0.0.1:8000/v1', monitor, port: 0 });
 * const { url } = await proxy.listen();
 */
export function createProxy({
  upstream: upstreamUrl,
  monitor,
  rules,
  workflowId = 'default',
  workflows = [],
  port = DEFAULT_PROXY_PORT,
  host = DEFAULT_PROXY_HOST,
  proxyKeys,
  conversations = localPlacement(monitor.conversations),
  anthropicUpstream: anthropicUrl,
  passthrough = [],
  responseRecords = memoryResponseRecords(),
  requireSessionId = false,
  bodyLimitBytes = DEFAULT_BODY_LIMIT_BYTES,
  upstreamTimeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS,
  storeHealthy = () => true,
  readyWhenDegraded = false,
  rateLimit,
  tracer,
  meter,
  logger = console,
  textPolicy = 'stream',
  holdTextChars = DEFAULT_HOLD_TEXT_CHARS,
  holdTextMs = DEFAULT_HOLD_TEXT_MS,
  refusalMessage = DEFAULT_REFUSAL_MESSAGE,
  judge,
}: ProxyOptions): Proxy {
  if (textPolicy !== 'stream' && textPolicy !== 'hold') throw new InvalidOptionError({ parameter: 'textPolicy', value: textPolicy, fix: "Pass 'stream' (the default) or 'hold'." });
  if (typeof refusalMessage !== 'string' || refusalMessage.trim() === '') throw new InvalidOptionError({ parameter: 'refusalMessage', value: refusalMessage, fix: "Pass the text a user reads in place of a refused call, such as \"I can't do that.\"" });
  for (const [parameter, value] of [['holdTextChars', holdTextChars], ['holdTextMs', holdTextMs]] as const) {
    if (!Number.isInteger(value) || value <= 0) throw new InvalidOptionError({ parameter, value, fix: 'Pass a positive whole number.' });
  }
  if (judge !== undefined && (typeof judge?.judgeScope !== 'function' || !Array.isArray(judge.rubrics))) throw new InvalidOptionError({ parameter: 'judge', value: judge, fix: 'Pass a judge made by createJudge({ model, rubrics }), or leave judge out.' });
  assertUpstreamUrl(upstreamUrl, 'upstream');
  if (anthropicUrl !== undefined) assertUpstreamUrl(anthropicUrl, 'anthropicUpstream');
  const prefixes = passthrough.map((prefix) => {
    const normalised = typeof prefix === 'string' ? normalisePrefix(prefix) : undefined;
    if (normalised === undefined) throw new InvalidOptionError({ parameter: 'passthrough', value: prefix, fix: 'Pass path prefixes under /v1, such as /v1/models or /v1/embeddings (/v1 for every route).' });
    return normalised;
  });
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new InvalidOptionError({ parameter: 'port', value: port, fix: 'Pass a TCP port from 0 to 65535 (0 picks a free port); the default is 4100.' });
  if (!Number.isInteger(bodyLimitBytes) || bodyLimitBytes <= 0) throw new InvalidOptionError({ parameter: 'bodyLimitBytes', value: bodyLimitBytes, fix: 'Pass a positive whole number of bytes; the default is 10485760 (10 MiB).' });
  if (proxyKeys !== undefined && (proxyKeys.length === 0 || proxyKeys.some((key) => typeof key !== 'string' || key.trim() === ''))) {
    throw new InvalidOptionError({ parameter: 'proxyKeys', value: `${proxyKeys.length} key(s), ${proxyKeys.filter((key) => typeof key !== 'string' || key.trim() === '').length} empty`, fix: 'Pass one or more non-empty keys, or leave proxyKeys out for an open proxy (on loopback only).' });
  }
  if (!(upstreamTimeoutMs > 0 && Number.isFinite(upstreamTimeoutMs))) throw new InvalidOptionError({ parameter: 'upstreamTimeoutMs', value: upstreamTimeoutMs, fix: 'Pass a positive number of milliseconds; the default is 300000.' });
  if (rateLimit !== undefined && !(Number.isInteger(rateLimit.max) && rateLimit.max > 0 && Number.isInteger(rateLimit.windowMs) && rateLimit.windowMs > 0)) {
    throw new InvalidOptionError({ parameter: 'rateLimit', value: rateLimit, fix: 'Pass { max, windowMs }, both positive whole numbers: { max: 60, windowMs: 60000 } is 60 requests a minute per caller.' });
  }

  const ids = [workflowId, ...workflows.map((workflow) => workflow?.id)];
  for (const [at, id] of ids.entries()) {
    if (!isWorkflowId(id)) throw new InvalidOptionError({ parameter: at === 0 ? 'workflowId' : `workflows[${at - 1}].id`, value: id, fix: 'Pass an id of letters, digits, _ and - (it names the workflow in metrics and logs).' });
    if (ids.indexOf(id) !== at) throw new InvalidOptionError({ parameter: `workflows[${at - 1}].id`, value: id, fix: `Give each workflow its own id: '${id}' is taken${at > 0 && ids.indexOf(id) === 0 ? ' by the default workflow (workflowId)' : ''}.` });
  }
  const several = workflows.length > 0;
  const fallback: WorkflowPipeline = { id: workflowId, monitor, conversations, ...(rules ? { rules } : {}), labels: several ? { workflow: workflowId } : {} };
  const selected: SelectedWorkflow[] = workflows.map((workflow, at) => ({ id: workflow.id, monitor: workflow.monitor, conversations: workflow.conversations ?? localPlacement(workflow.monitor.conversations), ...(workflow.rules ? { rules: workflow.rules } : {}), labels: { workflow: workflow.id }, select: checkedSelector(workflow.select, at, proxyKeys) }));
  const pipelines: WorkflowPipeline[] = [fallback, ...selected];
  const select = createSelection(selected, fallback);
  const pipelineById = new Map(pipelines.map((pipeline) => [pipeline.id, pipeline]));
  const keyIdList = (proxyKeys ?? []).map(proxyKeyId);

  const upstream = createUpstream({ baseUrl: upstreamUrl, timeoutMs: upstreamTimeoutMs });
  const anthropic = anthropicUrl === undefined ? undefined : createUpstream({ baseUrl: anthropicUrl, timeoutMs: upstreamTimeoutMs });
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
  const isOpenPath = (request: FastifyRequest) => {
    const target = targetOf(request);
    return request.method === 'GET' && target !== undefined && !isRefusedTarget(target) && OPEN_PATHS.has(target.path);
  };

  // First of all hooks, so that a request refused by the key check is counted, timed and traced too. Probes and
  // scrapes are counted and timed, not traced.
  const requests = recordRequests({
    metrics,
    tracer,
    meter,
    workflow: (request) => pipelineById.get((request.raw as TargetRequest)[WORKFLOW] ?? workflowId)?.monitor.workflow.name ?? monitor.workflow.name,
    ...(several ? { workflowLabel: (request: FastifyRequest) => (request.raw as TargetRequest)[WORKFLOW] } : {}),
    sessionHeader: SESSION_HEADER,
    untraced: isOpenPath,
  });
  app.addHook('onRequest', (request, reply, done) => {
    requests.start(request, reply);
    done();
  });

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, _request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return send(reply, tooLarge());
    if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error instanceof SyntaxError) {
      return send(reply, proxyError(400, 'invalid_request_error', 'invalid_json', `The request body is not valid JSON: ${error.message}`));
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return send(reply, proxyError(415, 'invalid_request_error', 'unsupported_media_type', 'Send the request body as application/json.'));
    logOnce('internal', `A request failed inside the proxy: ${error.message}`);
    return send(reply, proxyError(500, 'upstream_error', 'proxy_internal_error', 'The proxy failed on this request.'));
  });
  app.setNotFoundHandler((request, reply) => {
    const target = targetOf(request);
    if (target && isRefusedTarget(target)) return send(reply, proxyError(400, 'invalid_request_error', 'invalid_path', `The request path was refused: ${target.refused}.`));
    return send(reply, proxyError(404, 'invalid_request_error', 'not_found', `No route ${request.method} ${target?.path ?? ''}: the proxy serves the /v1 routes, /livez, /readyz, /healthz and /metrics.`));
  });

  // Hooks in callback style: on every request, an async hook would cost a promise more. The key is checked before
  // anything else is done with the request, on every path but the proxy's own (probes and metrics), including paths
  // that lead nowhere.
  if (keys.length > 0) {
    app.addHook('onRequest', (request, reply, done) => {
      if (isOpenPath(request)) return done();
      const given = request.headers[PROXY_KEY_HEADER];
      const index = typeof given === 'string' ? keys.findIndex((key) => safeEqual(key, given)) : -1;
      // The caller, for the rate limit: which key, by its place in the list (the key itself is kept nowhere else).
      (request.raw as TargetRequest)[CALLER] = index;
      if (index !== -1) {
        (request.raw as TargetRequest)[KEY_ID] = keyIdList[index];
        return done();
      }
      void send(reply, proxyError(401, 'authentication_error', 'invalid_proxy_key', `Missing or unknown proxy key: send one of the proxy's keys in the ${PROXY_KEY_HEADER} header.`));
    });
  }
  // A body over the limit is refused from its Content-Length, before a byte of it is read.
  app.addHook('onRequest', (request, reply, done) => {
    if (!(Number(request.headers['content-length']) > bodyLimitBytes)) return done();
    void send(reply, tooLarge());
  });
  if (rateLimit) {
    const overLimit = createRateLimit(app, rateLimit, {
      callerOf: (request) => (keys.length > 0 ? `key:${(request.raw as TargetRequest)[CALLER]}` : `address:${request.ip}`),
      describeCaller: keys.length > 0 ? 'proxy key' : 'client address',
    });
    app.addHook('onRequest', async (request, reply) => {
      if (isOpenPath(request)) return;
      const error = await overLimit(request, reply);
      if (error) return send(reply, error);
    });
  }

  app.get('/healthz', async (_request, reply) => {
    const healthy = safeHealth(storeHealthy);
    return reply.send({ status: healthy ? 'ok' : 'degraded', store: healthy ? 'ok' : 'degraded', workflow: monitor.workflow.name, ...(several ? { workflows: Object.fromEntries(pipelines.map((pipeline) => [pipeline.id, pipeline.monitor.workflow.name])) } : {}) });
  });

  // The process answers: for a liveness probe, which restarts the process when this fails. Nothing else is checked.
  app.get('/livez', async (_request, reply) => reply.send({ status: 'ok' }));

  // Ready for traffic: the workflow is loaded (it is, once the proxy is built) and the session store answers, or the
  // operator chose to serve degraded. While closing, Fastify answers 503 itself.
  app.get('/readyz', async (_request, reply) => {
    const healthy = safeHealth(storeHealthy);
    if (healthy || readyWhenDegraded) return reply.send({ status: healthy ? 'ready' : 'degraded', store: healthy ? 'ok' : 'degraded', workflow: monitor.workflow.name });
    return reply.code(503).send({ status: 'not_ready', store: 'degraded', workflow: monitor.workflow.name, reason: 'The session store does not answer: sessions would not be shared. Set ready_when_degraded: true to take traffic anyway (fail-open).' });
  });

  registerInfoRoute(app, monitor, storeHealthy);

  app.get('/metrics', async (_request, reply) => {
    const misses = pipelines.flatMap((pipeline) => Object.entries(pipeline.monitor.misses()).map(([cause, value]) => ({ name: PROXY_METRICS.misses, type: 'counter' as const, labels: { cause, ...pipeline.labels }, value: value ?? 0 })));
    reply.header('content-type', 'text/plain; version=0.0.4');
    return reply.send(metrics.render([...misses, { name: PROXY_METRICS.storeUp, type: 'gauge', value: safeHealth(storeHealthy) ? 1 : 0 }]));
  });

  // The generation routes' JSON parser (Fastify's own, with its prototype-poisoning checks) keeps the body's text too:
  // a request the monitor leaves as it is goes upstream as the client sent it, without serialising it again.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.decorateRequest(RAW_BODY, '');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    (request as RawBodyRequest)[RAW_BODY] = text as string;
    parseJson(request, text as string, done);
  });
  const proxyJudge = judge ? createProxyJudge(judge, { logger }) : undefined;
  const generate = createGeneration({ select, metrics, logOnce, requireSessionId, bodyLimitBytes, upstreamTimeoutMs, textPolicy: { mode: textPolicy, holdChars: holdTextChars, holdMs: holdTextMs }, refusalMessage, ...(proxyJudge ? { judge: proxyJudge } : {}) });
  const serve = <Body extends RequestBody>(route: GenerationRoute<Body>, to: Upstream) =>
    app.post(route.path, (request, reply) =>
      requests.within(request, () =>
        generate(route, to, request, reply, {
          target: targetOf(request) as NormalisedTarget,
          raw: (request as RawBodyRequest)[RAW_BODY],
          keyId: (request.raw as TargetRequest)[KEY_ID],
          ...(several ? { selected: (pipeline: WorkflowPipeline) => ((request.raw as TargetRequest)[WORKFLOW] = pipeline.id) } : {}),
        }),
      ),
    );
  serve(chatRoute, upstream);
  serve(completionsRoute, upstream);
  serve(responsesRoute(responseRecords), upstream);
  if (anthropic) serve(messagesRoute, anthropic);
  else {
    app.post(messagesRoute.path, (_request, reply) =>
      sendError(reply, proxyError(404, 'invalid_request_error', 'anthropic_upstream_not_set', 'This proxy serves no Anthropic Messages API: set anthropic_upstream (the base URL of an Anthropic-compatible server, /v1 included) to monitor /v1/messages.'), 'anthropic'),
    );
  }

  // Every other /v1 route, body and answer streamed through unread: raw bodies, whatever their type.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.all('/v1/*', (request, reply) => passThrough(request, reply));
  });

  function tooLarge(): ProxyError {
    return proxyError(413, 'invalid_request_error', 'request_too_large', `The request body is larger than ${bodyLimitBytes} bytes, the proxy's limit.`);
  }

  /** Sends an error in the format of the route the request went to (Anthropic's under /v1/messages, else OpenAI's). */
  function send(reply: FastifyReply, error: ProxyError) {
    return sendError(reply, error, formatOf(targetOf(reply.request)));
  }

  async function passThrough(request: FastifyRequest, reply: FastifyReply) {
    const { path, query } = targetOf(request) as NormalisedTarget;
    // Another method on a monitored route would reach an upstream that may generate on it too, unmonitored.
    if (isMonitoredRoute(path)) {
      return send(reply.header('allow', 'POST'), proxyError(405, 'invalid_request_error', 'method_not_allowed', `${path} takes POST only through the proxy, which monitors it.`));
    }
    if (!isPassedThrough(path, prefixes)) {
      return send(reply, proxyError(404, 'invalid_request_error', 'route_not_enabled', `The proxy does not pass ${request.method} ${path} to the upstream: it monitors ${MONITORED_LIST}, and passes other routes only when the passthrough setting lists them (passthrough: ["${path.split('/').slice(0, 3).join('/')}"], or ["/v1"] for every route).`));
    }
    const to = anthropic && isUnderRoute(path, '/v1/messages') ? anthropic : upstream;
    const abort = abortOnClientGone(reply.raw);
    const body = request.body === undefined ? undefined : limitBody(request.body as Readable, bodyLimitBytes);
    let response: Dispatcher.ResponseData | ProxyError;
    try {
      response = await to.send({ method: request.method, path, query, headers: request.headers, body: body?.stream ?? null, signal: abort, monitored: false });
    } catch (error) {
      if (!abort.aborted) throw error;
      metrics.add(PROXY_METRICS.clientAborts);
      return reply;
    }
    if (body?.exceeded) return send(reply, tooLarge());
    if (isProxyError(response)) {
      metrics.add(PROXY_METRICS.upstreamErrors, { code: response.body.error.code });
      noteOutcome(reply, 'upstream_error');
      return send(reply, response);
    }
    if (response.statusCode >= 500) noteOutcome(reply, 'upstream_error');
    return reply.code(response.statusCode).headers(returnedHeaders(response.headers, { keepLength: true })).send(response.body);
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
      // Conversation judgments still running note their findings in the monitor: they end (each within the judge's
      // timeout) before the caller closes the monitor's store. Bounded, for a judge that never ends.
      if (proxyJudge) await settledWithin(proxyJudge.settled(), CLOSE_JUDGMENTS_MS);
      await upstream.close();
      await anthropic?.close();
    },
  };
}

/** Longest `close()` waits for the conversation judgments in flight: past the longest judgment `panoptes serve` allows. */
const CLOSE_JUDGMENTS_MS = MAX_SERVE_JUDGE_TIMEOUT_MS + 1_000;

/** Waits for `settled`, at most `ms`. */
async function settledWithin(settled: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** The raw request property that holds its normalised target, set before routing. */
const TARGET = Symbol('panoptes.target');
/** The raw request property that holds which proxy key it carried (its index in the list; -1 for none). */
const CALLER = Symbol('panoptes.caller');
/** The raw request properties that hold the id of the proxy key the caller sent and the workflow that served it. */
const KEY_ID = Symbol('panoptes.keyId');
const WORKFLOW = Symbol('panoptes.workflow');
type TargetRequest = FastifyRequest['raw'] & { [TARGET]?: NormalisedTarget | { refused: string }; [CALLER]?: number; [KEY_ID]?: string | undefined; [WORKFLOW]?: string };
/** Where a refused target is routed: nowhere, so the not-found handler answers it with the reason (after the key check). */
const REFUSED_ROUTE = '/';

/** The request property that holds a generation request's body as the client sent it. */
const RAW_BODY = 'panoptesRawBody';
type RawBodyRequest = FastifyRequest & { [RAW_BODY]: string };

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

function assertUpstreamUrl(value: unknown, parameter: 'upstream' | 'anthropicUpstream'): asserts value is string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    const fix = parameter === 'upstream' ? 'Pass the base URL of an OpenAI-compatible API, /v1 included, e.g. http://127.0.0.1:8000/v1.' : 'Pass the base URL of an Anthropic-compatible API, /v1 included, e.g. https://api.anthropic.com/v1.';
    throw new InvalidOptionError({ parameter, value, fix });
  }
}

/**
 * A workflow's selector as selection compares it (its route normalised as request paths are), or an error for one
 * that could never match: no condition at all, a route that is no path under /v1, a key selector on an open proxy.
 */
function checkedSelector(select: WorkflowSelector | undefined, at: number, proxyKeys: readonly string[] | undefined): WorkflowSelector {
  const parameter = `workflows[${at}].select`;
  if (select === undefined || select === null || Object.keys(select).length === 0) throw new InvalidOptionError({ parameter, value: select, fix: 'Give the workflow at least one condition (route, header, model or key); the default workflow (monitor) takes every other request.' });
  const route = select.route === undefined ? undefined : typeof select.route === 'string' ? normalisePrefix(select.route) : undefined;
  if (select.route !== undefined && route === undefined) throw new InvalidOptionError({ parameter: `${parameter}.route`, value: select.route, fix: 'Pass a path prefix under /v1, such as /v1/responses.' });
  if (select.key !== undefined && proxyKeys === undefined) throw new InvalidOptionError({ parameter: `${parameter}.key`, value: select.key, fix: 'A key selector needs proxyKeys: an open proxy has no caller key to select by.' });
  if (select.header !== undefined && (typeof select.header?.name !== 'string' || typeof select.header.value !== 'string')) throw new InvalidOptionError({ parameter: `${parameter}.header`, value: select.header, fix: "Pass { name: 'x-team', value: 'billing' }." });
  return { ...select, ...(route === undefined ? {} : { route }), ...(select.header ? { header: { name: select.header.name.toLowerCase(), value: select.header.value } } : {}) };
}

/** The monitored routes, as an error lists them. */
const MONITORED_LIST = 'POST /v1/chat/completions, /v1/completions, /v1/responses and /v1/messages';

/** The error format of a request's route: Anthropic's for `/v1/messages` and the paths under it, else OpenAI's. */
function formatOf(target: NormalisedTarget | { refused: string } | undefined): ErrorFormat {
  return target && !isRefusedTarget(target) && isUnderRoute(target.path, '/v1/messages') ? 'anthropic' : 'openai';
}

export type { Upstream };
