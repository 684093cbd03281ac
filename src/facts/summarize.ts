import type { Value } from '../rules/index.js';
import { formatFact, formatValue, type Fact } from './fact.js';

/** Options of `FactStore.summarize`. */
export interface SummarizeOptions {
  /** At most this many facts are listed; the rest are counted. @default 40 */
  maxFacts?: number;
}

/** The default cap on facts listed in a summary, to keep the system prompt short. */
export const DEFAULT_SUMMARY_MAX_FACTS = 40;

/**
 * Renders context bindings, facts and derived conclusions as a few lines of rule-language text. Sorted, and free of
 * timestamps, so the same knowledge gives the same text (prompt caches stay warm); values are written so the model
 * can copy them into a query.
 */
export function renderSummary(
  contexts: Record<string, Value>,
  facts: readonly Fact[],
  derived: readonly string[],
  { maxFacts = DEFAULT_SUMMARY_MAX_FACTS }: SummarizeOptions = {},
): string {
  const lines: string[] = [];
  const names = Object.keys(contexts).sort();
  lines.push(names.length === 0 ? 'Context: (none bound)' : `Context: ${names.map((name) => `${name} = ${formatValue(contexts[name]!)}`).join('; ')}`);
  const rendered = [...new Set(facts.map((fact) => formatFact(fact.predicate, fact.args)))].sort();
  if (rendered.length === 0) {
    lines.push('Facts: (none)');
  } else {
    lines.push(`Facts (${rendered.length}):`);
    for (const line of rendered.slice(0, maxFacts)) lines.push(`  ${line}`);
    if (rendered.length > maxFacts) lines.push(`  ... and ${rendered.length - maxFacts} more`);
  }
  if (derived.length > 0) lines.push(`Derived: ${[...new Set(derived)].sort().join('; ')}`);
  return lines.join('\n');
}
