/**
 * Errors the proxy answers with, in OpenAI's format (`{ error: { message, type, param, code } }`), so every OpenAI
 * client raises them as its own API errors. The table of statuses and codes is in docs/proxy.md.
 * @module
 */

/** `type` of an error body: Panoptes' refusals, the client's mistakes, and the upstream's failures. */
export type ProxyErrorType = 'panoptes_violation' | 'invalid_request_error' | 'authentication_error' | 'rate_limit_error' | 'upstream_error';

/** An error body with its HTTP status. */
export interface ProxyError {
  status: number;
  body: { error: { message: string; type: ProxyErrorType; param: string | null; code: string } };
}

/**
 * Builds an OpenAI-format error.
 * @example
 * proxyError(413, 'invalid_request_error', 'request_too_large', 'The request body is over 10485760 bytes.')
 */
export function proxyError(status: number, type: ProxyErrorType, code: string, message: string, param: string | null = null): ProxyError {
  return { status, body: { error: { message, type, param, code } } };
}

/** The error of a server-sent event that ends a stream early (OpenAI clients raise a `data: {"error": ...}` event). */
export function sseError(error: ProxyError): string {
  return `data: ${JSON.stringify(error.body)}\n\n`;
}

/**
 * The shape errors take on a route: OpenAI's (`{ error: { message, type, param, code } }`), or Anthropic's on the
 * Messages route (`{ type: "error", error: { type, message, code } }`), so each client raises them as its own errors.
 */
export type ErrorFormat = 'openai' | 'anthropic';

/** The JSON text of an error in a route's format. */
export function errorText(error: ProxyError, format: ErrorFormat = 'openai'): string {
  if (format === 'openai') return JSON.stringify(error.body);
  const { type, message, code } = error.body.error;
  return JSON.stringify({ type: 'error', error: { type, message, code } });
}

/**
 * The server-sent event that ends a stream with an error, in a route's format: OpenAI clients raise a data event that
 * carries `error`; Anthropic's raise an event named `error`.
 */
export function sseErrorIn(error: ProxyError, format: ErrorFormat): string {
  return format === 'openai' ? sseError(error) : `event: error\ndata: ${errorText(error, format)}\n\n`;
}
