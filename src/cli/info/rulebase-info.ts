import { formatTermNode } from '../../rules/format.js';
import type { Rulebase } from '../../rules/index.js';

/** What a rulebase holds, as `panoptes info` prints it. */
export interface RulebaseInfo {
  source: string;
  contexts: string[];
  /** Facts read from data tools: `predicate/arity from tool`, and how long they stay fresh. */
  data: Array<{ predicate: string; arity: number; tool: string; ttlMs?: number }>;
  askables: Array<{ predicate: string; arity: number; question: string; confirms?: string }>;
  /** Rules by head predicate, with how many clauses define it. */
  rules: Array<{ predicate: string; arity: number; clauses: number }>;
  /** Facts written in the file (clauses without a body). */
  facts: string[];
  /** Guarded tools, with how many alternative guards each has. */
  guards: Array<{ tool: string; guards: number }>;
  /** Tools whose successful call makes data stale, and which data tools. */
  writes: Array<{ tool: string; invalidates: string[] }>;
  warnings: number;
}

/** Summarises a loaded rulebase. */
export function rulebaseInfo(rulebase: Rulebase): RulebaseInfo {
  const rules: RulebaseInfo['rules'] = [];
  const facts: string[] = [];
  for (const [predicate, clauses] of rulebase.rules) {
    const withBody = clauses.filter((clause) => clause.body.length > 0);
    for (const clause of clauses) if (clause.body.length === 0) facts.push(`${predicate}(${clause.args.map(formatTermNode).join(', ')})`);
    if (withBody.length > 0) rules.push({ predicate, arity: clauses[0]!.args.length, clauses: withBody.length });
  }
  return {
    source: rulebase.source,
    contexts: [...rulebase.contexts.keys()],
    data: [...rulebase.data.values()].map((data) => ({ predicate: data.predicate, arity: data.params.length, tool: data.tool, ...(data.ttlMs === undefined ? {} : { ttlMs: data.ttlMs }) })),
    askables: [...rulebase.askables.values()].map((askable) => ({ predicate: askable.predicate, arity: askable.params.length, question: askable.question, ...(askable.confirms ? { confirms: askable.confirms.tool } : {}) })),
    rules,
    facts,
    guards: [...rulebase.guards].map(([tool, guards]) => ({ tool, guards: guards.length })),
    writes: [...rulebase.writes].map(([tool, writes]) => ({ tool, invalidates: [...new Set(writes.flatMap((write) => write.invalidates.map((target) => target.tool)))] })),
    warnings: rulebase.warnings.length,
  };
}

/** The summary as lines for a terminal. */
export function renderRulebaseInfo(info: RulebaseInfo): string[] {
  const list = (items: string[]) => (items.length === 0 ? 'none' : items.join(', '));
  return [
    `rulebase ${info.source}`,
    `contexts (${info.contexts.length}): ${list(info.contexts)}`,
    `data (${info.data.length}):`,
    ...info.data.map((data) => `  ${data.predicate}/${data.arity} from ${data.tool}${data.ttlMs === undefined ? '' : `, fresh for ${data.ttlMs / 1000} s`}`),
    `askables (${info.askables.length}):`,
    ...info.askables.map((askable) => `  ${askable.predicate}/${askable.arity}${askable.confirms ? ` (confirms a call of ${askable.confirms})` : ''}: ${JSON.stringify(askable.question)}`),
    `rules (${info.rules.length}): ${list(info.rules.map((rule) => `${rule.predicate}/${rule.arity}${rule.clauses > 1 ? ` (${rule.clauses} clauses)` : ''}`))}`,
    `facts (${info.facts.length}): ${list(info.facts)}`,
    `guarded tools (${info.guards.length}): ${list(info.guards.map((guard) => (guard.guards > 1 ? `${guard.tool} (${guard.guards} guards)` : guard.tool)))}`,
    ...(info.writes.length > 0 ? [`writes: ${info.writes.map((write) => `${write.tool} invalidates ${write.invalidates.join(', ')}`).join('; ')}`] : []),
    ...(info.warnings > 0 ? [`${info.warnings} warning${info.warnings === 1 ? '' : 's'}: run panoptes rules check ${info.source}`] : []),
  ];
}
