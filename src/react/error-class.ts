/**
 * Whether a failed model call is worth another attempt: rate limits (429), server errors
 * (5xx), timeouts and network errors pass; bad credentials (401/403), other 4xx (an invalid request or tool schema)
 * and refusals will fail the same way again.
 */
export type ModelErrorClass = 'transient' | 'permanent';

/** Network failures Node and undici report by `code`: the request never got an answer, so another may. */
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Error names that mean "no answer in time" across SDKs and LangGraph (`NodeTimeoutError`). */
const TIMEOUT_NAMES = new Set(['TimeoutError', 'NodeTimeoutError', 'APIConnectionTimeoutError', 'APIConnectionError', 'FetchError']);

/** Names of errors that say the model declined, or that the request itself is wrong: retrying changes nothing. */
const PERMANENT_NAMES = new Set(['AuthenticationError', 'PermissionDeniedError', 'BadRequestError', 'NotFoundError', 'UnprocessableEntityError', 'ContentFilterFinishReasonError', 'LengthFinishReasonError', 'ZodError', 'ToolInputParsingException', 'OutputParserException']);

/**
 * Classifies an error thrown by a model call. The HTTP status wins when there is one (`status`, `statusCode` or
 * `response.status`, as the OpenAI, Anthropic and fetch-based SDKs set it); then the error's name and `code`; an
 * error that says nothing recognisable is permanent, so an unknown failure costs one attempt, not three.
 * @example
 * classifyModelError(Object.assign(new Error('Rate limit'), { status: 429 })) // 'transient'
 * classifyModelError(Object.assign(new Error('Incorrect API key'), { status: 401 })) // 'permanent'
 */
export function classifyModelError(error: unknown): ModelErrorClass {
  if (typeof error !== 'object' || error === null) return 'permanent';
  const fields = error as { status?: unknown; statusCode?: unknown; response?: { status?: unknown }; name?: unknown; code?: unknown; cause?: unknown; message?: unknown };
  const status = Number(fields.status ?? fields.statusCode ?? fields.response?.status);
  if (Number.isInteger(status) && status >= 400) return status === 408 || status === 409 || status === 429 || status >= 500 ? 'transient' : 'permanent';
  const name = typeof fields.name === 'string' ? fields.name : '';
  if (PERMANENT_NAMES.has(name)) return 'permanent';
  if (TIMEOUT_NAMES.has(name) || name === 'RateLimitError' || name === 'InternalServerError') return 'transient';
  if (typeof fields.code === 'string' && NETWORK_CODES.has(fields.code)) return 'transient';
  if (name === 'TypeError' && typeof fields.message === 'string' && /fetch failed|network/i.test(fields.message)) return 'transient';
  // fetch wraps the socket error as `cause`
  if (fields.cause !== undefined && fields.cause !== error) return classifyModelError(fields.cause);
  return 'permanent';
}

/** Whether {@link classifyModelError} calls the error transient: the shape of LangGraph's `RetryPolicy.retryOn`. */
export function isTransientModelError(error: unknown): boolean {
  return classifyModelError(error) === 'transient';
}
