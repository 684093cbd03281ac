import { valueKey } from '../facts/index.js';
import type { CompiledDataDeclaration, Value } from '../rules/index.js';
import type { FetchOutcome } from './data-fetcher.js';

// Calls remembered per tool: a check meets a handful (one reservation, its flights), never hundreds.
const CALLS_PER_TOOL = 16;

interface KnownCall {
  args: Record<string, Value>;
  outcome: FetchOutcome;
  /** When the store's facts for it were fetched; absent for a call a check made itself (good for that check). */
  fetchedAt?: number;
}

/**
 * Outcomes of data tool calls by tool and arguments. A check asks about the same few calls again and again (every
 * data condition of a reservation, every clause); comparing arguments here costs less than building the call's key
 * and looking it up in the store, which was the largest cost of an all-cached check.
 */
export class KnownCalls {
  private readonly byTool = new Map<string, KnownCall[]>();
  private version: number | undefined;

  /** Forgets every call when the store changed since they were remembered (`version` is the store's). */
  validate(version: number): void {
    if (version === this.version) return;
    this.byTool.clear();
    this.version = version;
  }

  /** The outcome of this call, if known and, for a fetch in the store, still fresh for this declaration. */
  find(declaration: CompiledDataDeclaration, args: Record<string, Value>, now: number): FetchOutcome | undefined {
    const calls = this.byTool.get(declaration.tool);
    if (!calls) return undefined;
    for (const call of calls) {
      if ((call.fetchedAt === undefined || isFresh(call.fetchedAt, declaration, now)) && sameArgs(call.args, args)) return call.outcome;
    }
    return undefined;
  }

  add(tool: string, call: KnownCall): void {
    const calls = this.byTool.get(tool);
    if (!calls) this.byTool.set(tool, [call]);
    else if (calls.length < CALLS_PER_TOOL) calls.push(call);
  }
}

/** Whether a fetch is recent enough for this declaration: TTLs are per declaration, fetches per tool call. */
export function isFresh(fetchedAt: number, declaration: CompiledDataDeclaration, now: number): boolean {
  return declaration.ttlMs === undefined || fetchedAt + declaration.ttlMs > now;
}

function sameArgs(known: Record<string, Value>, args: Record<string, Value>): boolean {
  let count = 0;
  for (const name in args) {
    count++;
    const value = args[name]!;
    const other = known[name];
    if (other !== value && (other === undefined || typeof value !== 'object' || valueKey(other) !== valueKey(value))) return false;
  }
  for (const _ in known) count--;
  return count === 0;
}
