/**
 * How a session's workflow is chosen among several: by a function of the caller's, by a session attribute, or by
 * patterns over the session's first user message. Checked once, when the monitor is made.
 * @module
 */
import { InvalidOptionError } from '../errors/index.js';
import { backtrackingOf, compilePattern } from '../workflow/regex.js';

/** What a selector is told about a session the first time one of its calls needs a workflow. */
export interface WorkflowSelectionInput {
  readonly sessionId: string;
  /**
   * The attributes the session was started with (`monitor.startSession`), else the metadata of its first
   * `afterModel`; empty when there were none.
   */
  readonly attributes: Readonly<Record<string, unknown>>;
  /**
   * The text of the first user message of the session's first model request (its first call is `beforeModel`);
   * `undefined` when the first call carried no request or no user message. Read only if asked for: a request whose
   * messages an adapter converts on demand is converted only then.
   */
  readonly firstMessage: string | undefined;
}

/**
 * Chooses a session's workflow: the id of one of the monitor's workflows, or `undefined` for the default.
 * - a function of {@link WorkflowSelectionInput}, sync or async (bounded by `selectTimeoutMs`);
 * - `{ attribute: 'team' }`: the session attribute of that name holds the id;
 * - `{ firstMessage: { refunds: ['refund', 'money back'] } }`: the first workflow, in the order listed, one of whose
 *   patterns the first user message matches (patterns as a workflow's: regular expressions, case-insensitive, checked
 *   for catastrophic backtracking; the first 8,000 characters are read).
 */
export type SelectWorkflow =
  | ((input: WorkflowSelectionInput) => string | undefined | PromiseLike<string | undefined>)
  | { attribute: string }
  | { firstMessage: Readonly<Record<string, readonly (string | RegExp)[]>> };

/** A checked selector: what it chose (anything a function returned, checked by the caller), sync when it can be. */
export type CompiledSelect = (input: WorkflowSelectionInput) => unknown;

/** Characters of the first user message the patterns read, as the classifier reads a response. */
const MESSAGE_LIMIT = 8000;

/**
 * Checks a selector against the monitor's workflow ids and compiles its patterns.
 * @throws {InvalidOptionError} for a selector of no known form, an empty attribute name, a pattern list naming a
 * workflow the monitor does not have, or a pattern that does not compile or can backtrack catastrophically.
 */
export function compileSelect(select: SelectWorkflow, ids: readonly string[], parameter = 'select'): CompiledSelect {
  if (typeof select === 'function') return select;
  const forms = "a function of the session ({ sessionId, attributes, firstMessage }) returning a workflow id, { attribute: 'team' }, or { firstMessage: { refunds: ['refund'] } }";
  if (typeof select !== 'object' || select === null) throw new InvalidOptionError({ parameter, value: select, fix: `Pass ${forms}.` });
  const keys = Object.keys(select);
  if (keys.length === 1 && 'attribute' in select) {
    const { attribute } = select;
    if (typeof attribute !== 'string' || attribute === '') throw new InvalidOptionError({ parameter: `${parameter}.attribute`, value: attribute, fix: 'Pass the name of the session attribute that holds the workflow id, such as "team".' });
    return ({ attributes }) => attributes[attribute];
  }
  if (keys.length === 1 && 'firstMessage' in select) return firstMessageSelect(select.firstMessage, ids, `${parameter}.firstMessage`);
  throw new InvalidOptionError({ parameter, value: select, fix: `Pass ${forms}.` });
}

function firstMessageSelect(lists: Readonly<Record<string, readonly (string | RegExp)[]>>, ids: readonly string[], parameter: string): CompiledSelect {
  if (typeof lists !== 'object' || lists === null || Array.isArray(lists) || Object.keys(lists).length === 0) {
    throw new InvalidOptionError({ parameter, value: lists, fix: "Pass the patterns of each workflow the first message can choose, by id: { refunds: ['refund', 'money back'] }." });
  }
  const compiled = Object.entries(lists).map(([id, patterns]) => {
    if (!ids.includes(id)) throw new InvalidOptionError({ parameter: `${parameter}.${id}`, value: id, fix: `Name one of the monitor's workflows: ${ids.join(', ')}.` });
    if (!Array.isArray(patterns) || patterns.length === 0) throw new InvalidOptionError({ parameter: `${parameter}.${id}`, value: patterns, fix: "Pass a non-empty list of patterns (strings or regular expressions): ['refund', 'money back']." });
    return { id, patterns: patterns.map((pattern, index) => checkedPattern(pattern, `${parameter}.${id}[${index}]`)) };
  });
  return ({ firstMessage }) => {
    if (firstMessage === undefined) return undefined;
    const text = firstMessage.length > MESSAGE_LIMIT ? firstMessage.slice(0, MESSAGE_LIMIT) : firstMessage;
    return compiled.find(({ patterns }) => patterns.some((pattern) => pattern.test(text)))?.id;
  };
}

/** A pattern as the classifier would run it; one that can hang the process on a crafted message is refused. */
function checkedPattern(pattern: unknown, parameter: string): RegExp {
  if (pattern instanceof RegExp) {
    if (backtrackingOf(pattern)?.exponential) throw new InvalidOptionError({ parameter, value: pattern.source, fix: 'Rewrite it so no quantified group can match the same text in more than one way (e.g. `(a+)+` -> `a+`).' });
    // A global or sticky expression keeps state between tests: a copy without those flags matches every message alike.
    return pattern.global || pattern.sticky ? new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '')) : pattern;
  }
  if (typeof pattern !== 'string' || pattern === '') throw new InvalidOptionError({ parameter, value: pattern, fix: 'Pass a regular expression, or a string of one (matched case-insensitively).' });
  const { regex, problem } = compilePattern(pattern);
  if (!regex || problem?.severity === 'error') throw new InvalidOptionError({ parameter, value: pattern, fix: `${problem?.message ?? 'It does not compile'}: ${problem?.hint ?? 'pass a JavaScript regular expression'}.` });
  return regex;
}
