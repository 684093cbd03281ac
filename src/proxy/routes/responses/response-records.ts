/**
 * What the proxy records of each Responses API response it delivers, for the requests that continue it by
 * `previous_response_id`: the session it belongs to, and the calls it withheld from it (the upstream stored the
 * response with them, and refuses a continuation that does not answer every call).
 * @module
 */

/** A call withheld from a response: its id, its kind, and the output the proxy answers it with (the refusal's text). */
export interface WithheldCall {
  callId: string;
  kind: 'function_call' | 'custom_tool_call';
  output: string;
}

/** What the proxy recorded of one response. */
export interface ResponseRecord {
  sessionId: string;
  withheld: WithheldCall[];
}

/**
 * Where the records are kept: in this process by default ({@link memoryResponseRecords}); in Redis, so every instance
 * finds them, with the Redis store's `responses()`.
 */
export interface ResponseRecords {
  get(responseId: string): ResponseRecord | undefined | Promise<ResponseRecord | undefined>;
  set(responseId: string, record: ResponseRecord): void | Promise<void>;
}

/** Records remembered in memory by default; past it the least recently used are forgotten. */
export const DEFAULT_RESPONSE_RECORDS = 10_000;

/**
 * Records in this process, at most `limit` (the least recently used are forgotten: a request continuing a forgotten
 * response starts a session of its own).
 * @example
 * const records = memoryResponseRecords();
 * records.set('resp_1', { sessionId: 's1', withheld: [] });
 */
export function memoryResponseRecords({ limit = DEFAULT_RESPONSE_RECORDS }: { limit?: number } = {}): ResponseRecords {
  const records = new Map<string, ResponseRecord>();
  return {
    get(responseId) {
      const found = records.get(responseId);
      if (found) {
        records.delete(responseId);
        records.set(responseId, found);
      }
      return found;
    },
    set(responseId, record) {
      records.delete(responseId);
      records.set(responseId, record);
      if (records.size > limit) records.delete(records.keys().next().value!);
    },
  };
}
