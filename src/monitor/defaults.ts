/** Budget of one session store call: past it the call fails open and is counted. */
export const DEFAULT_STORE_TIMEOUT_MS = 1000;

/**
 * Budget of one tool guard (a sentinel's proof, data tools included): past it the call is refused, since guards
 * fail closed. Generous, because a proof may wait on real data tools; it only has to keep a hung one from holding
 * the session's other calls for ever.
 */
export const DEFAULT_GUARD_TIMEOUT_MS = 30_000;
