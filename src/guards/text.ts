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
 * The few lines the model reads when a goal or a call is not proved. The first line says what to do or why not:
 * with something to do (ask, bind, retry), the subject and then the actions; with nothing to do, for a refused call
 * (one with a `tail`), the subject and the decisive reason on the same line. Reasons are the conditions that decided the outcome, in the rule's own words when
 * it gives them; incidental failures of other rule alternatives (`decisive: false`) are left to the developer message.
 * Kept apart from the developer message on purpose.
 * @param tail A last line (what not to do next), when there is one.
 */
export function blockerText(subject: string, blockers: readonly Blocker[], names: PolicyToolNames = DEFAULT_POLICY_TOOL_NAMES, tail?: string): string {
  const actions: string[] = [];
  const reasons: string[] = [];
  let conditions = 0;
  for (const blocker of blockers) {
    switch (blocker.kind) {
      case 'ask': {
        const unknowns = [...new Set(blocker.goal.replace(/"(?:[^"\\]|\\.)*"/g, '').match(/\b_?[A-Z][A-Za-z0-9_]*/g) ?? [])];
        const fill = unknowns.length > 0 ? ` (replace ${unknowns.join(', ')} with the user's answer)` : '';
        const call = blocker.call !== undefined && !blocker.question.includes(blocker.call) ? ` The call to confirm: ${blocker.call}.` : '';
        if (blocker.unstated !== undefined || blocker.spent) {
          actions.push(groundedAskText(blocker));
          break;
        }
        actions.push(`Ask the user: "${blocker.question}"${call} If they explicitly agree, call ${names.confirm} with goal \`${blocker.goal}\`${fill} and answer "yes"; then try again.`);
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
        actions.push(
          blocker.given
            ? `${blocker.parameter} = ${formatValue(blocker.value)} is not a known fact: the user has not said it in this conversation; ask them.`
            : `${blocker.parameter} = ${formatValue(blocker.value)} is not a known fact: ${blocker.read ? `read it first with ${blocker.read}` : 'look it up with a data tool first'} (or, if the user said it, ask them and call ${names.bindContext}).`,
        );
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
      {
        if (blocker.decisive === false || conditions >= MAX_CONDITIONS_FOR_MODEL) break;
        // A provenance refusal names where the value came from even when the rule explains itself in its own words.
        const reason = blocker.explain !== undefined ? sentence(blocker.explain) + (blocker.chain ? ` (${blocker.facts.slice(0, 3).join('; ')})` : '') : `${blocker.goal} does not hold${blocker.facts.length > 0 ? ` (known: ${blocker.facts.slice(0, 3).join('; ')})` : ''}.`;
        // Several alternatives under one explained condition fail with the same words: say them once.
        if (reasons.includes(reason)) break;
        conditions++;
        reasons.push(reason);
        break;
      }
    }
  }
  const lines: string[] = [];
  if (actions.length > 0) {
    lines.push(`${subject} To proceed:`, ...actions.map((action) => `- ${action}`));
    if (reasons.length > 0) lines.push('Also:', ...reasons.map((reason) => `- ${reason}`));
  } else if (reasons.length > 0 && tail !== undefined) {
    // A refused call: the first line says why, the last what not to do.
    lines.push(`${subject.replace(/[.:]$/, '')}: ${reasons[0]}`);
    if (reasons.length > 1) lines.push('Also:', ...reasons.slice(1).map((reason) => `- ${reason}`));
  } else {
    lines.push(subject);
    if (reasons.length > 0) lines.push('Why:', ...reasons.map((reason) => `- ${reason}`));
  }
  if (tail !== undefined) lines.push(tail);
  return lines.join('\n');
}

/** The action for a grounded confirmation the user's yes did not cover: what the restatement left out, or that it was spent. */
function groundedAskText(blocker: Blocker & { kind: 'ask' }): string {
  const why = blocker.spent
    ? "The user's last yes already confirmed a call; a yes counts once."
    : `The user's yes answered a message that did not state ${blocker.unstated!.join(', ')} of this call.`;
  return `${why} Restate the call to the user, with every one of these values, and ask: "${blocker.question}" If they explicitly agree, try the call again.`;
}

/** A reason as a sentence: a capital and a full stop are not the author's job. */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** The developer-facing account of blockers: every one, with rule lines. */
export function blockerMessage(subject: string, blockers: readonly Blocker[], source: string): string {
  const lines = blockers.map((blocker) => {
    switch (blocker.kind) {
      case 'condition':
        return `  ${source}${blocker.line ? `:${blocker.line}` : ''} condition failed${blocker.decisive === false ? ' (incidental)' : ''}: ${blocker.goal} [${blocker.condition}]${blocker.explain ? ` "${blocker.explain}"` : ''}${blocker.facts.length > 0 ? ` facts: ${blocker.facts.join('; ')}` : ''}`;
      case 'ask':
        return `  unconfirmed askable: ${blocker.goal} "${blocker.question}"${blocker.call ? ` for ${blocker.call}` : ''}`;
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
