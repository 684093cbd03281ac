import type { LiteralNode, TermNode } from './ast.js';

/** Renders a term as it would be written in a rulebase. */
export function formatTermNode(term: TermNode): string {
  switch (term.kind) {
    case 'constant':
      return typeof term.value === 'string' ? (term.quoted || !/^[a-z][A-Za-z0-9_]*$/.test(term.value) ? JSON.stringify(term.value) : term.value) : String(term.value);
    case 'var':
    case 'context':
      return term.name;
    case 'list':
      return `[${term.items.map(formatTermNode).join(', ')}]`;
    case 'object':
      return `{${term.entries.map((entry) => `${entry.key}: ${formatTermNode(entry.value)}`).join(', ')}}`;
    case 'arithmetic':
      return `(${formatTermNode(term.left)} ${term.operator} ${formatTermNode(term.right)})`;
  }
}

/** Renders a body condition as it would be written in a rulebase. */
export function formatLiteralNode(literal: LiteralNode): string {
  switch (literal.kind) {
    case 'call':
      return literal.args.length === 0 ? literal.predicate : `${literal.predicate}(${literal.args.map(formatTermNode).join(', ')})`;
    case 'compare':
      return `${formatTermNode(literal.left)} ${literal.operator} ${formatTermNode(literal.right)}`;
    case 'member':
      return `${formatTermNode(literal.element)} in ${formatTermNode(literal.list)}`;
    case 'not':
      return `not ${formatLiteralNode(literal.goal)}`;
  }
}
