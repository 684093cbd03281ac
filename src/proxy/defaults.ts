/** The proxy's defaults, apart from the server so that reading a configuration loads no HTTP library. */
/** 4100, not 4000: LiteLLM, a common upstream, listens on 4000 by default. */
export const DEFAULT_PROXY_PORT = 4100;
export const DEFAULT_PROXY_HOST = '127.0.0.1';
export const DEFAULT_BODY_LIMIT_BYTES = 10 * 1024 * 1024;
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 300_000;
/** Most characters of a streamed response held under `text_policy: hold` before it streams unchecked (64 KiB). */
export const DEFAULT_HOLD_TEXT_CHARS = 65_536;
/** Longest a streamed response's text is held under `text_policy: hold` before it streams unchecked, in ms. */
export const DEFAULT_HOLD_TEXT_MS = 10_000;
