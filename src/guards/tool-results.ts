import type { FactStore } from '../facts/index.js';
import type { Rulebase, TermNode, Value, WriteDeclaration } from '../rules/index.js';
import { confirmationRef } from './confirmation.js';
import { fetchKey } from './fetch-key.js';
import { declarationFits, extractFacts, type ExtractedFact } from './fetch.js';

/** What became of a tool call that ran: its result, or that it failed (threw, or answered with an error result). */
export type ToolOutcome = { ok: true; result: unknown } | { ok: false };

/** Most values one result gives strict mode, and how deep into it they are looked for: a result may be huge. */
const MAX_VALUES_PER_RESULT = 5_000;
const MAX_RESULT_DEPTH = 32;

/**
 * Retracts every call-bound confirmation of this exact call: a yes covers one run of one call, so a second identical
 * write needs a second yes. Returns how many were consumed.
 */
export function consumeConfirmations(rulebase: Rulebase, store: FactStore, tool: string, args: Readonly<Record<string, unknown>>): number {
  let consumed = 0;
  for (const declaration of rulebase.confirmationsByTool.get(tool) ?? []) {
    const ref = confirmationRef(declaration, tool, args);
    const pattern = [...declaration.params.map(() => undefined), ref];
    for (const fact of store.match(declaration.predicate, pattern)) if (store.retract(fact.predicate, fact.args)) consumed++;
  }
  return consumed;
}

/**
 * Drops the data tool calls a successful write makes stale (its `write` declarations), so the next proof reads them
 * again and no conclusion drawn from them survives. A declaration whose constant parameters the call does not match
 * does not apply. Returns the keys of the calls that were in the store and are now forgotten.
 */
export function invalidateWrites(rulebase: Rulebase, store: FactStore, tool: string, args: Readonly<Record<string, unknown>>): string[] {
  const dropped: string[] = [];
  for (const declaration of rulebase.writes.get(tool) ?? []) {
    const bindings = bindParameters(declaration, args);
    if (!bindings) continue;
    for (const target of declaration.invalidates) {
      const targetArgs: Record<string, Value> = {};
      let ground = true;
      for (const arg of target.args) {
        const value = termValue(arg.value, bindings, store);
        if (value === undefined) ground = false;
        else targetArgs[arg.name] = value;
      }
      if (!ground) continue;
      const key = fetchKey(target.tool, targetArgs);
      if (store.invalidateFetch(key)) dropped.push(key);
    }
  }
  return dropped;
}

/**
 * Records a data tool's result that the agent itself read, as the sentinel would have recorded its own fetch: the
 * same declarations, JSON paths and TTLs, under the same key, so the agent's read counts and is not fetched again.
 * Returns false when the tool backs no data declaration or the arguments are not the declaration's.
 */
export function recordDataResult(rulebase: Rulebase, store: FactStore, tool: string, args: Record<string, Value>, rawResult: unknown): boolean {
  const declarations = (rulebase.dataByTool.get(tool) ?? []).filter((declaration) => declarationFits(declaration, args));
  if (declarations.length === 0) return false;
  const result = parseJsonText(rawResult);
  const facts: ExtractedFact[] = [];
  const errors: Record<string, string> = {};
  for (const declaration of declarations) {
    const extracted = extractFacts(declaration, args, result);
    if ('error' in extracted) errors[declaration.predicate] = extracted.error;
    else facts.push(...extracted.facts);
  }
  store.recordFetch({ key: fetchKey(tool, args), tool, args }, facts, errors);
  return true;
}

/** The strings and numbers of a tool result (JSON text is read as JSON), bounded in count and depth. */
export function readValuesOf(rawResult: unknown): Array<string | number> {
  const found: Array<string | number> = [];
  const walk = (value: unknown, depth: number): void => {
    if (found.length >= MAX_VALUES_PER_RESULT || depth > MAX_RESULT_DEPTH) return;
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) found.push(value);
    else if (Array.isArray(value)) for (const item of value) walk(item, depth + 1);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        // An object keyed by id (`payment_methods: { credit_card_1: {...} }`) names its ids in its keys.
        if (found.length < MAX_VALUES_PER_RESULT) found.push(key);
        walk(item, depth + 1);
      }
    }
  };
  walk(parseJsonText(rawResult), 0);
  return found;
}

/** Tools often answer with JSON as text (MCP content, tau-bench); read it as the JSON it is. */
export function parseJsonText(result: unknown): unknown {
  if (typeof result !== 'string') return result;
  const trimmed = result.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return result;
  try {
    return JSON.parse(trimmed);
  } catch {
    return result;
  }
}

/** The head of a write declaration matched against the call's arguments: variables bound, constants checked. */
function bindParameters(declaration: WriteDeclaration, args: Readonly<Record<string, unknown>>): Map<string, Value> | undefined {
  const bindings = new Map<string, Value>();
  for (const param of declaration.params) {
    const value = args[param.name];
    if (value === undefined) return undefined;
    if (param.value.kind === 'var') {
      if (param.value.name !== '_') bindings.set(param.value.name, value as Value);
    } else if (param.value.kind === 'constant') {
      if (param.value.value !== value) return undefined;
    }
  }
  return bindings;
}

function termValue(term: TermNode, bindings: ReadonlyMap<string, Value>, store: FactStore): Value | undefined {
  switch (term.kind) {
    case 'var':
      return bindings.get(term.name);
    case 'context':
      return store.context(term.name)?.value;
    case 'constant':
      return term.value;
    default:
      return undefined;
  }
}
