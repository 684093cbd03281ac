import { MAX_NESTING, nestsDeeperThan } from '../answer-body.js';
import { record } from '../answer-calls.js';

/**
 * A streamed data event of the Responses API or Anthropic Messages: a JSON object with a string `type` (what both read
 * an event by, whatever its SSE name), not nested too deep; `undefined` for anything else.
 */
export function parseTypedEvent(data: string): Record<string, unknown> | undefined {
  if (nestsDeeperThan(data, MAX_NESTING)) return undefined;
  try {
    const event = record(JSON.parse(data));
    return typeof event?.type === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}
