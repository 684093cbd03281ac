import { InvalidOptionError } from '../errors/index.js';
import { sentinelFor, type SentinelSource } from './sentinel-sessions.js';

/**
 * The header of the fact summary Panoptes adds to the model's system text when a sentinel guards the tools.
 * @example
 * systemPrompt.includes(FACTS_HEADER) // the request carried the sentinel's facts
 */
export const FACTS_HEADER = '[KNOWN FACTS]';

/**
 * The block every host appends to the model's system text: {@link FACTS_HEADER}, then the facts of the session's
 * sentinel (`facts.summarize()`: context bindings, facts, derived conclusions). Read afresh on each call, so a tool
 * result that changed the facts is in the next request. A summary that cannot be made (a `summarize` that throws,
 * per-conversation sentinels without a session) is Panoptes' own failure: `onError` hears it and the call goes on
 * without the block (`undefined`).
 * @example
 * const block = factSummaryBlock(sentinel, sessionId, (error) => failed('sentinel.facts.summarize', error));
 * const messages = block === undefined ? request : appendToSystem(request, block);
 */
export function factSummaryBlock(sentinel: SentinelSource, sessionId: string | undefined, onError: (error: unknown) => void): string | undefined {
  try {
    return `${FACTS_HEADER}\n${sentinelFor(sentinel, sessionId).facts.summarize()}`;
  } catch (error) {
    onError(error);
    return undefined;
  }
}

/** Where a host's failure log names a summary that could not be made. */
export const FACT_SUMMARY_FAILURE = 'sentinel.facts.summarize';

/**
 * Checks a host's `factSummary` option: a boolean, and `true` only with a sentinel to summarise.
 * @throws InvalidOptionError for anything else.
 */
export function assertFactSummaryOption(value: unknown, sentinel: SentinelSource | undefined): void {
  if (value !== undefined && typeof value !== 'boolean') throw new InvalidOptionError({ parameter: 'factSummary', value, fix: 'Pass true or false; the default is true when a sentinel is given.' });
  if (value === true && sentinel === undefined) throw new InvalidOptionError({ parameter: 'factSummary', value, fix: 'The fact summary is the sentinel’s: pass `sentinel` too, or leave factSummary out.' });
}
