import { formatValue, type FactStore } from '../facts/index.js';
import type { LiteralNode, Rulebase, TermNode, Value } from '../rules/index.js';

/** The data tool call that establishes a guard parameter's value: the tool, and its arguments as the rule writes them. */
interface ReadHint {
  tool: string;
  args: ReadonlyArray<{ name: string; term: TermNode | undefined }>;
  /** The variable that stands for the parameter's value where the hint was found. */
  variable: string;
}

// How many rule levels the search looks through: the airline's own_reservation(R) is one, deeper is rare.
const HINT_DEPTH = 3;

/**
 * For each guarded tool and parameter, the data read that would establish a value of it, found in the guard's body
 * (directly, or through the rules it calls): `cancel_reservation(reservation_id: R) :- own_reservation(R)` and
 * `own_reservation(R) :- user_reservation(current_user, R)` make it `get_user_details(user_id: current_user)`. What
 * strict mode tells the agent to read instead of guessing.
 */
export function findReadHints(rulebase: Rulebase): Map<string, Map<string, ReadHint>> {
  const hints = new Map<string, Map<string, ReadHint>>();
  for (const [tool, guards] of rulebase.guards) {
    const byParameter = new Map<string, ReadHint>();
    for (const guard of guards) {
      for (const param of guard.params) {
        if (param.value.kind !== 'var' || byParameter.has(param.name)) continue;
        const hint = findRead(rulebase, guard.body, param.value.name, HINT_DEPTH);
        if (hint) byParameter.set(param.name, hint);
      }
    }
    if (byParameter.size > 0) hints.set(tool, byParameter);
  }
  for (const [tool, parameters] of rulebase.strict) {
    const byParameter = hints.get(tool) ?? new Map<string, ReadHint>();
    for (const parameter of parameters) {
      if (byParameter.has(parameter)) continue;
      const hint = findFlowRead(rulebase, tool, parameter);
      if (hint) byParameter.set(parameter, hint);
    }
    if (byParameter.size > 0) hints.set(tool, byParameter);
  }
  return hints;
}

/**
 * For a data tool's parameter that no guard of the tool binds: the read the policy itself does before it calls the
 * tool with that value. `cabin(R, C) from get_reservation(reservation_id: R)` called as `reservation_of(current_user,
 * R), cabin(R, business)` in some rule or guard makes it `get_user(user_id: current_user)`: the value the tool is
 * called with comes from that read.
 */
function findFlowRead(rulebase: Rulebase, tool: string, parameter: string): ReadHint | undefined {
  const bodies = [...rulebase.guards.values(), ...rulebase.rules.values()].flatMap((clauses) => clauses.map((clause) => clause.body));
  for (const data of rulebase.dataByTool.get(tool) ?? []) {
    const arg = data.toolArgs.find((candidate) => candidate.name === parameter)?.value;
    if (arg?.kind !== 'var') continue;
    const position = data.params.indexOf(arg.name);
    for (const body of bodies) {
      for (const literal of body) {
        const variable = literal.kind === 'call' && literal.predicate === data.predicate ? literal.args[position] : undefined;
        if (variable?.kind !== 'var') continue;
        const hint = findRead(rulebase, body, variable.name, HINT_DEPTH, tool);
        if (hint) return hint;
      }
    }
  }
  return undefined;
}

/** The first data read in `body` (or the rules it calls) that binds `variable`, other than a read of `exceptTool`. */
function findRead(rulebase: Rulebase, body: readonly LiteralNode[], variable: string, depth: number, exceptTool?: string): ReadHint | undefined {
  for (const literal of body) {
    if (literal.kind !== 'call') continue;
    const position = literal.args.findIndex((arg) => arg.kind === 'var' && arg.name === variable);
    if (position === -1) continue;
    const data = rulebase.data.get(literal.predicate);
    if (data && data.tool === exceptTool) continue; // the tool being checked cannot establish its own argument
    if (data) {
      const args = data.toolArgs.map((arg) => ({
        name: arg.name,
        term: arg.value.kind === 'var' ? literal.args[data.params.indexOf(arg.value.name)] : arg.value,
      }));
      return { tool: data.tool, args, variable };
    }
    if (depth === 0) continue;
    for (const clause of rulebase.rules.get(literal.predicate) ?? []) {
      const head = clause.args[position];
      if (head?.kind !== 'var') continue;
      const found = findRead(rulebase, clause.body, head.name, depth - 1, exceptTool);
      if (found) return found;
    }
  }
  return undefined;
}

/** A hint as the agent reads it, context names filled in: `get_user_details(user_id: "mia_li_3818")`. */
export function renderReadHint(hint: ReadHint, value: Value, facts: FactStore): string {
  const args = hint.args.map(({ name, term }) => {
    if (term === undefined) return `${name}: ...`;
    if (term.kind === 'var') return `${name}: ${term.name === hint.variable ? formatValue(value) : '...'}`;
    if (term.kind === 'context') {
      const bound = facts.context(term.name)?.value;
      return `${name}: ${bound === undefined ? `<${term.name}>` : formatValue(bound)}`;
    }
    return `${name}: ${term.kind === 'constant' ? formatValue(term.value) : '...'}`;
  });
  return `${hint.tool}(${args.join(', ')})`;
}
