/**
 * The upstream: one OpenAI-compatible server fixed by configuration (never taken from a request), reached with
 * undici over a kept-alive connection pool.
 * @module
 */
import type { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent, request, type Dispatcher } from 'undici';
import { proxyError, type ProxyError } from './errors.js';
import { belowBasePath } from './request-path.js';

/** Headers that describe one hop, not the message: never passed back (RFC 9110 section 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);

/**
 * The request headers the upstream receives; every other header stays at the proxy. An allowlist rather than a
 * blocklist: a client's `X-Forwarded-For`, `Forwarded` or `X-HTTP-Method-Override` could otherwise tell an upstream
 * something about the call the proxy never checked. Listed: what OpenAI-compatible and Anthropic-compatible clients
 * send to authenticate, describe the body and identify themselves (docs/proxy.md, "Security").
 */
export const FORWARDED_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'api-key',
  'authorization',
  'content-type',
  'idempotency-key',
  'user-agent',
  'x-api-key',
]);

/** Header prefixes forwarded too: the OpenAI and Anthropic SDKs' own (`openai-organization`, `anthropic-version`, `x-stainless-os`, ...). */
export const FORWARDED_HEADER_PREFIXES: readonly string[] = ['openai-', 'anthropic-', 'x-stainless-'];

/** The header that carries a proxy key; it is for the proxy alone and never reaches the upstream. */
export const PROXY_KEY_HEADER = 'x-panoptes-key';

/** Options of {@link createUpstream}. */
export interface UpstreamOptions {
  /** Base URL of the OpenAI-compatible API, `/v1` included (`http://127.0.0.1:8000/v1`). */
  baseUrl: string;
  /** Budget for the upstream's response headers, and then for each gap between body chunks, in milliseconds. */
  timeoutMs: number;
}

/** What aborts an upstream request: an AbortSignal, or an EventEmitter that emits `abort` (undici takes both). */
export type UpstreamSignal = AbortSignal | (EventEmitter & { readonly aborted: boolean });

/** A request to the upstream, the answer or an OpenAI-format error. */
export interface Upstream {
  /** The upstream URL for a normalised proxy path under `/v1` and its query: `/v1/models`, `?x=1` -> `<baseUrl>/models?x=1`. */
  urlOf(path: string, query?: string): string;
  send(options: { method: string; path: string; query: string; headers: IncomingHttpHeaders; body?: string | Readable | null; signal?: UpstreamSignal; monitored: boolean }): Promise<Dispatcher.ResponseData | ProxyError>;
  close(): Promise<void>;
}

/** Builds the upstream client; one pool of connections for every request. */
export function createUpstream({ baseUrl, timeoutMs }: UpstreamOptions): Upstream {
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 256, pipelining: 1 });
  const urlOf = (path: string, query = '') => `${base.origin}${basePath}${belowBasePath(path)}${query}`;
  return {
    urlOf,
    async send({ method, path, query, headers, body, signal, monitored }) {
      try {
        return await request(urlOf(path, query), {
          method: method as Dispatcher.HttpMethod,
          headers: forwardedHeaders(headers, monitored),
          body: body ?? null,
          signal,
          dispatcher,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
      } catch (error) {
        if (signal?.aborted) throw error;
        return upstreamError(error, timeoutMs);
      }
    },
    close: () => dispatcher.close(),
  };
}

/**
 * The client's headers as the upstream gets them: those in {@link FORWARDED_HEADERS} or with a prefix in
 * {@link FORWARDED_HEADER_PREFIXES}, unchanged (`Authorization` included); never the proxy key. A monitored call asks
 * for an uncompressed answer, since the proxy reads it.
 */
export function forwardedHeaders(headers: IncomingHttpHeaders, monitored: boolean): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !isForwarded(name)) continue;
    if (monitored && name === 'accept-encoding') continue;
    result[name] = value;
  }
  return result;
}

function isForwarded(name: string): boolean {
  return FORWARDED_HEADERS.has(name) || FORWARDED_HEADER_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** The upstream's response headers as the client gets them (hop-by-hop headers dropped). */
export function returnedHeaders(headers: IncomingHttpHeaders, { keepLength }: { keepLength: boolean }): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || (HOP_BY_HOP.has(name) && !(keepLength && name === 'content-length'))) continue;
    result[name] = value;
  }
  return result;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** A failed upstream request in OpenAI's format: 504 when it ran out of time, else 502. The message names no secret. */
export function upstreamError(error: unknown, timeoutMs: number): ProxyError {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) {
    return proxyError(504, 'upstream_error', 'upstream_timeout', `The upstream model server did not answer within ${timeoutMs} ms.`);
  }
  const cause = (error as { cause?: { code?: unknown } })?.cause?.code ?? code;
  return proxyError(502, 'upstream_error', 'upstream_unavailable', `The upstream model server could not be reached${typeof cause === 'string' ? ` (${cause})` : ''}.`);
}

/** Whether `value` is an error of ours rather than an upstream response. */
export function isProxyError(value: unknown): value is ProxyError {
  return typeof value === 'object' && value !== null && 'body' in value && 'status' in value && !('statusCode' in value);
}

/** A failure while reading the upstream's body: 504 when it stopped sending for longer than the budget, else 502. */
export function upstreamBodyError(error: unknown, timeoutMs: number): ProxyError {
  const code = (error as { code?: unknown })?.code;
  if (code === 'UND_ERR_BODY_TIMEOUT') return proxyError(504, 'upstream_error', 'upstream_timeout', `The upstream model server did not answer within ${timeoutMs} ms.`);
  return proxyError(502, 'upstream_error', 'upstream_unavailable', 'The upstream model server broke off its answer.');
}
