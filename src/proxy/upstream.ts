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

/** Headers that describe one hop, not the message: never forwarded (RFC 9110 section 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);

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
  /** The upstream URL for a proxy path: `/v1/models?x=1` -> `<baseUrl>/models?x=1`. */
  urlOf(path: string): string;
  send(options: { method: string; path: string; headers: IncomingHttpHeaders; body?: string | Readable | null; signal?: UpstreamSignal; monitored: boolean }): Promise<Dispatcher.ResponseData | ProxyError>;
  close(): Promise<void>;
}

/** Builds the upstream client; one pool of connections for every request. */
export function createUpstream({ baseUrl, timeoutMs }: UpstreamOptions): Upstream {
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 256, pipelining: 1 });
  const urlOf = (path: string) => `${base.origin}${basePath}${path.replace(/^\/v1(?=\/|$|\?)/, '')}`;
  return {
    urlOf,
    async send({ method, path, headers, body, signal, monitored }) {
      try {
        return await request(urlOf(path), {
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
 * The client's headers as the upstream gets them: `Authorization` unchanged; without hop-by-hop headers and the proxy
 * key. A monitored call asks for an uncompressed answer, since the proxy reads it.
 */
export function forwardedHeaders(headers: IncomingHttpHeaders, monitored: boolean): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === PROXY_KEY_HEADER) continue;
    if (monitored && name === 'accept-encoding') continue;
    result[name] = value;
  }
  return result;
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
