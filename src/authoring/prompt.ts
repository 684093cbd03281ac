import type { Diagnostic } from '../diagnostics/index.js';
import { formatDiagnostic } from '../diagnostics/index.js';
import type { ToolSpec } from '../rules/index.js';
import type { CompilerMessage } from './model.js';

/**
 * The system prompt for drafting a workflow. It teaches the file's parts, all seven constraint types with the exact
 * verdicts the monitor computes, and the four intervention prefixes (section 6), because a
 * model that guesses the semantics writes constraints that look right and check something else.
 */
export const WORKFLOW_SYSTEM_PROMPT = `You turn a written policy for an AI agent into a Panoptes workflow: the states the agent moves through, the allowed moves, temporal constraints over the sequence of states, and intervention texts. Answer with one JSON object that follows the given JSON Schema, and nothing else.

STATES. One state per kind of step the policy distinguishes (greeting, authentication, looking something up, each kind of write, confirming, transferring to a human, closing). Exactly one state has "initial": true. States where a conversation ends have "terminal": true. A state is recognised in the agent's reply by, in order: "tool_calls" (names of the agent's tools; the most reliable, use them whenever a tool marks the step), "patterns" (case-insensitive JavaScript regular expressions over the reply text; make them precise: a pattern such as "please confirm" also matches a request for details), "exemplars" (example replies, compared by meaning). Every state except the initial one needs at least one of the three.

TRANSITIONS. {"from", "to"}: the moves the policy allows. A state with no transition listed out of it allows any next state; a terminal state with none ends the conversation. The trace of a session is the sequence of states entered, starting with the initial state; staying in a state adds nothing.

CONSTRAINTS. "trigger", "target" and "condition" each name a state, a list of states (any of them), "!state" (any state but that one) or "*" (any state). A trace is closed when the conversation ends. Verdicts, exactly:
- eventually (target): satisfied as soon as a target state occurs; violated if the trace closes without one.
- never (target): violated as soon as a target state occurs; satisfied if the trace closes without one.
- always (condition): violated as soon as a state outside the condition occurs; satisfied if the trace closes without one.
- precedence (trigger, target): the target must occur BEFORE the first trigger. Violated when a trigger occurs with no target strictly before it; satisfied when a target occurs before any trigger, or the trace closes with no trigger. Use it for "X only after Y" (trigger X, target Y).
- response (trigger, target): every trigger must be FOLLOWED later by a target. Violated if the trace closes with a trigger not followed by a target. Use it for "after X, always do Y".
- until (trigger A, target B): from the first A on, only A states may occur until a B occurs. Violated when, after the first A, a state that is neither A nor B occurs before B, or the trace closes without B after the first A; satisfied when B occurs with only A states before it, or the trace closes with no A at all.
- next (trigger, target): the state right after each trigger must be a target. Violated when a trigger is followed by a non-target, or the trace closes on a trigger. Without a trigger: the second state of the trace must be a target. Use it for "X only right after Y" (trigger Y, target X) or "after X, immediately Y".
Severity: "warning" (noted), "error" (corrected on the next model call), "critical" (a tool call that would violate it is refused before it runs; use it for writes the policy forbids).
Name every constraint in snake_case. Give it the intervention to apply when it is violated.

INTERVENTIONS. {"name", "template"}: the text the agent reads on its next model call after a violation. Placeholders: {current_state}, {constraint}, {details}, {valid_next_states}, {attempted_state}. The template's prefix chooses how it is delivered:
- no prefix: appended to the system message as workflow guidance;
- "inject: ": added as a user message at the end of the conversation (for corrections the agent must act on now);
- "remind: ": added as a reminder the model reads as context;
- "block: ": the model call is refused (use only for what must never proceed).

SOURCES. Every state, transition, constraint and intervention has "source": a verbatim quote, copied character for character, of the policy sentence it comes from. Do not paraphrase; a source that does not occur in the policy is flagged for the reviewer. When one sentence justifies several items, quote it for each.

Prefer few precise states and constraints that follow from the policy's order of operations over many vague ones.`;

/** The system prompt for drafting a rulebase. */
export const RULEBASE_SYSTEM_PROMPT = `You turn a written policy for an AI agent into a Panoptes rulebase: rules that decide, before an action tool runs, whether the call is allowed, proved from facts the agent's data tools return. Answer with one JSON object that follows the given JSON Schema: "items", each one declaration or rule in the rule language ("text") with its "kind" and "source", a verbatim quote of the policy sentence it comes from.

THE RULE LANGUAGE (one item per line; variables start with a capital letter; strings in double quotes):
- context NAME "description": a variable the conversation binds, e.g. context current_user "the customer's user id".
- data PRED(Args) from TOOL(param: Arg, ...) -> Var = $.json.path, ... ttl 60s: a fact read from a data tool's JSON result, e.g. data booking_status(B, S) from get_booking(booking_id: B) -> S = $.status ttl 60s. Paths: $.field, $.list[*].field, $.list.length.
- askable PRED(Args) "question with {Args}": a fact only the user can confirm, e.g. askable confirms_cancellation(R) "Cancel reservation {R}? (yes/no)".
- rule HEAD(Args) :- goal, goal, ... .: derived facts; goals are facts, comparisons (=, !=, <, <=, >, >=) and built-ins.
- guard TOOL(param: Var, ...) :- goal, ... .: when an action tool may run; several guards for one tool are alternatives.
Use only the tools given, with their parameter names. Every write the policy conditions on the user's explicit confirmation needs an askable in its guard.`;

/** The first user message: the policy, and the tools when given. */
export function firstMessage(policyText: string, tools: readonly ToolSpec[] | undefined): string {
  const toolLines = (tools ?? []).map((tool) => {
    if (typeof tool === 'string') return `- ${tool}`;
    const parameters = Object.keys(tool.parameters?.properties ?? {});
    return `- ${tool.name}(${parameters.join(', ')})`;
  });
  return [
    'POLICY:',
    '"""',
    policyText.trim(),
    '"""',
    ...(toolLines.length > 0 ? ['', "THE AGENT'S TOOLS:", ...toolLines] : []),
  ].join('\n');
}

/** The repair message: the draft as the validator read it, with line numbers, and its diagnostics. */
export function repairMessage(text: string, diagnostics: readonly Diagnostic[]): string {
  const numbered = text.split('\n').map((line, index) => `${String(index + 1).padStart(4)} | ${line}`);
  return [
    'Your draft, as Panoptes read it:',
    ...numbered,
    '',
    'Panoptes found these problems (file:line:column severity field: message; hint):',
    ...diagnostics.map((diagnostic) => `- ${formatDiagnostic(diagnostic)}`),
    '',
    'Answer with the whole corrected JSON object. Keep what was right; fix every error.',
  ].join('\n');
}

/** The conversation of the first round. */
export function initialMessages(system: string, policyText: string, tools: readonly ToolSpec[] | undefined): CompilerMessage[] {
  return [
    { role: 'system', content: system },
    { role: 'user', content: firstMessage(policyText, tools) },
  ];
}

/** The system prompt for drafting rubrics: policies an LLM judge checks where rules cannot. */
export const RUBRIC_SYSTEM_PROMPT = `You turn a written policy for an AI agent into Panoptes rubrics: policies an LLM judge checks where a rule over states or facts cannot ("never promise a refund amount before the assessment", "the e-mail must be one the user asked for"). Answer with one JSON object that follows the given JSON Schema: "rubrics", and nothing else.

SCOPE. Each rubric has one scope:
- tool_call: a tool call judged before it runs, on the user's requests, the recent tool results and the call; name the tools in applies_to.tools. Set tool_results to 0 when the question is whether the user asked for the action, so text a tool returned cannot argue for it.
- turn: one response of the agent, judged before it is returned, on the user's last message and the response.
- conversation: the transcript so far; set every_turns to judge it every n-th turn only.

CRITERIA. Each criterion checks one thing, phrased so that the best score means the policy holds. Scales: binary (0 fails, 1 holds), or likert_3, likert_5, likert_7 (1 worst to n best; give anchors for the ends). weight (default 1) is the criterion's share of the score; fail_below fails the rubric when that criterion scores lower, whatever the rest.

PASSING. The score is the weighted mean of the criteria, each put on [0, 1]; the rubric passes at pass_at or above. Use pass_at 1 for rules that must all hold.

ACTIONS. on_fail: warn (noted), intervene (the model is told and tries again), block (the action is refused), ask (the user decides). on_error, when the judge cannot answer (timeout, budget, a bad answer): allow, deny or ask. Block or deny only for what the policy forbids outright; prefer intervene or ask elsewhere.

IDS. snake_case, unique: rubric ids in the file, criterion ids in their rubric.

SOURCES. Every rubric and criterion has "source": a verbatim quote, copied character for character, of the policy sentence it comes from. Do not paraphrase; a source that does not occur in the policy is flagged for the reviewer.

Write a rubric only for what the policy says and a rule cannot check: an order of steps belongs in a workflow, a fact from a tool in a rulebase.`;
