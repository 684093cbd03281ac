import { formatValue } from '../facts/index.js';
import type { Value } from '../rules/index.js';
import type { Blocker, Derivation } from './result.js';

/** Names of the tools the model uses to act on blockers, so the texts can tell it which to call. */
export interface PolicyToolNames {
  /** @default 'query_policy' */
  query: string;
  /** @default 'set_context' */
  bindContext: string;
  /** @default 'record_confirmation' */
  confirm: string;
}

/** The default names of the tools for the model. */
export const DEFAULT_POLICY_TOOL_NAMES: PolicyToolNames = { query: 'query_policy', bindContext: 'set_context', confirm: 'record_confirmation' };

// A handful of failed conditions explains a refusal; fifty do not.
const MAX_CONDITIONS_FOR_MODEL = 4;

/**
 * The few lines the model reads when a goal or a call is not proved: what to do first (ask, bind, retry), then why,
 * in the rule language so it can query the same things. Kept apart from the developer message on purpose.
 */
export function blockerText(subject: string, blockers: readonly Blocker[], names: PolicyToolNames = DEFAULT_POLICY_TOOL_NAMES): string {
  const actions: string[] = [];
  const reasons: string[] = [];
  for (const blocker of blockers) {
    switch (blocker.kind) {
      case 'ask': {
        const unknowns = [...new Set(blocker.goal.replace(/"(?:[^"\\]|\\.)*"/g, '').match(/\b_?[A-Z][A-Za-z0-9_]*/g) ?? [])];
        const fill = unknowns.length > 0 ? ` (replace ${unknowns.join(', ')} with the user's answer)` : '';
        actions.push(`Ask the user: "${blocker.question}" If they explicitly agree, call ${names.confirm} with goal \`${blocker.goal}\`${fill} and answer "yes"; then try again.`);
        break;
      }
      case 'bind-context':
        actions.push(`Find out ${blocker.description ? `${blocker.description} (${blocker.name})` : `what ${blocker.name} is`}, then call ${names.bindContext} with name "${blocker.name}".`);
        break;
      case 'fetch-failed':
        actions.push(`Could not get data: ${blocker.reason}. Try again later, or tell the user it cannot be checked now.`);
        break;
      case 'contradiction':
        reasons.push(`Conflicting facts for ${blocker.goal}: ${blocker.facts.join('; ')}.`);
        break;
      case 'limit':
        reasons.push(`The policy check of ${blocker.goal} stopped: ${blocker.reason}.`);
        break;
      case 'unestablished-value':
        actions.push(`${blocker.parameter} = ${formatValue(blocker.value)} is not a known fact: look it up with a data tool (or ask the user and call ${names.bindContext}) before using it.`);
        break;
      case 'no-guard':
        reasons.push(`No policy rule allows ${blocker.tool}.`);
        break;
      case 'missing-argument':
        actions.push(`Pass the argument ${blocker.parameter}.`);
        break;
      case 'internal-error':
        reasons.push('The policy could not be checked right now.');
        break;
      case 'condition':
        if (reasons.length < MAX_CONDITIONS_FOR_MODEL) reasons.push(`${blocker.goal} does not hold${blocker.facts.length > 0 ? ` (known: ${blocker.facts.slice(0, 3).join('; ')})` : ''}.`);
        break;
    }
  }
  const lines = [subject];
  if (actions.length > 0) lines.push('To proceed:', ...actions.map((action) => `- ${action}`));
  if (reasons.length > 0) lines.push(actions.length > 0 ? 'Also:' : 'Why:', ...reasons.map((reason) => `- ${reason}`));
  return lines.join('\n');
}

/** The developer-facing account of blockers: every one, with rule lines. */
export function blockerMessage(subject: string, blockers: readonly Blocker[], source: string): string {
  const lines = blockers.map((blocker) => {
    switch (blocker.kind) {
      case 'condition':
        return `  ${source}${blocker.line ? `:${blocker.line}` : ''} condition failed: ${blocker.goal} [${blocker.condition}]${blocker.facts.length > 0 ? ` facts: ${blocker.facts.join('; ')}` : ''}`;
      case 'ask':
        return `  unconfirmed askable: ${blocker.goal} "${blocker.question}"`;
      case 'bind-context':
        return `  unbound context: ${blocker.name}`;
      case 'fetch-failed':
        return `  fetch failed: ${blocker.tool}(${JSON.stringify(blocker.args)}): ${blocker.reason}`;
      case 'contradiction':
        return `  contradiction: ${blocker.goal}: ${blocker.facts.join('; ')}`;
      case 'limit':
        return `  limit: ${blocker.goal}: ${blocker.reason}`;
      case 'unestablished-value':
        return `  strict mode: ${blocker.parameter} = ${formatValue(blocker.value)} is not established`;
      case 'no-guard':
        return `  no guard declared for ${blocker.tool}`;
      case 'missing-argument':
        return `  missing argument ${blocker.parameter}`;
      case 'internal-error':
        return `  internal error: ${blocker.reason}`;
    }
  });
  return [subject, ...lines].join('\n');
}

/** A derivation as an indented tree, for logs and the developer message. */
export function formatDerivation(derivation: Derivation, indent = ''): string {
  const source = derivation.source ? `  [${derivation.by}, ${derivation.source}]` : `  [${derivation.by}]`;
  return [`${indent}${derivation.goal}${source}`, ...derivation.children.map((child) => formatDerivation(child, `${indent}  `))].join('\n');
}

/** Renders query answers for the model: one line of bindings per answer. */
export function answersText(goal: string, answers: ReadonlyArray<{ bindings: Record<string, Value> }>): string {
  const withValues = answers.filter((answer) => Object.keys(answer.bindings).length > 0);
  if (withValues.length === 0) return `Yes: ${goal} holds.`;
  const lines = withValues.map((answer) => `- ${Object.entries(answer.bindings).map(([name, value]) => `${name} = ${formatValue(value)}`).join(', ')}`);
  return [`Yes: ${goal} holds for:`, ...lines].join('\n');
}
