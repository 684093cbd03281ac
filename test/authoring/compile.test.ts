import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CompileError, compileRulebase, compileWorkflow, withUsage, type CompilerMessage, type CompilerModel } from '../../src/authoring/index.js';
import { validateWorkflow } from '../../src/workflow/index.js';
import { draft, POLICY } from './fixtures.js';

/** A scripted model: answers in order, and records every conversation it was sent. */
function scripted(...answers: unknown[]): CompilerModel & { calls: CompilerMessage[][]; schemas: unknown[] } {
  const calls: CompilerMessage[][] = [];
  const schemas: unknown[] = [];
  const model = async (messages: CompilerMessage[], schema: Record<string, unknown>) => {
    calls.push(structuredClone(messages));
    schemas.push(schema);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return Object.assign(model, { calls, schemas });
}

/** The error a compile that must fail rejects with. */
async function failure(compile: Promise<unknown>): Promise<CompileError> {
  const error = await compile.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!CompileError.isInstance(error)) throw new Error(`expected a CompileError, got ${String(error)}`);
  return error as CompileError;
}

describe('compileWorkflow', () => {
  it('accepts a valid first draft: one round, commented YAML that loads, every item with its source, usage added up', async () => {
    const model = scripted(withUsage(draft(), { inputTokens: 1200, outputTokens: 300 }));
    const rounds: unknown[] = [];
    const result = await compileWorkflow(POLICY, { model, tools: ['verify_identity', 'issue_refund'], onRound: (round) => rounds.push(round) });
    expect(result.rounds).toHaveLength(1);
    expect(rounds).toEqual([{ round: 1, diagnostics: [], usage: { inputTokens: 1200, outputTokens: 300 }, ok: true }]);
    expect(result.usage).toEqual({ inputTokens: 1200, outputTokens: 300 });
    expect(result.unquoted).toEqual([]);
    expect(result.yaml).toMatch(/^# yaml-language-server: \$schema=/);
    expect(validateWorkflow(result.yaml).ok).toBe(true);
    const written = parse(result.yaml) as { constraints: Array<{ source: string }>; interventions: Record<string, { source: string }> };
    expect(written.constraints[0]!.source).toBe("Verify the customer's identity before any refund.");
    expect(written.interventions.verify_first!.source).toBe("Verify the customer's identity before any refund.");
    // The prompt teaches all seven types and all four prefixes, and the policy reaches the model.
    const system = model.calls[0]![0]!.content;
    for (const word of ['eventually (target)', 'never (target)', 'always (condition)', 'precedence (trigger, target)', 'response (trigger, target)', 'until (trigger A, target B)', 'next (trigger, target)', '"inject: "', '"remind: "', '"block: "', 'no prefix']) expect(system).toContain(word);
    expect(model.calls[0]![1]!.content).toContain('Never share internal notes.');
    expect(model.calls[0]![1]!.content).toContain('- issue_refund');
    expect(model.schemas[0]).toMatchObject({ type: 'object', required: expect.arrayContaining(['states', 'constraints']) });
  });

  it('sends the positioned diagnostics back and accepts the repaired draft', async () => {
    const broken = draft({ constraints: [{ name: 'verify_before_refund', type: 'precedence', trigger: 'refund', target: 'verify', severity: 'critical', source: 'Greet the customer.' }] });
    const model = scripted(broken, draft());
    const result = await compileWorkflow(POLICY, { model });
    expect(result.rounds.map((round) => round.diagnostics.filter((diagnostic) => diagnostic.severity === 'error').map((diagnostic) => diagnostic.code))).toEqual([['unknown-state'], []]);
    const repair = model.calls[1]!;
    expect(repair.at(-2)).toMatchObject({ role: 'assistant' });
    expect(repair.at(-1)!.content).toMatch(/workflow\.yaml:\d+:\d+ error constraints\[0\]\.target: unknown state 'verify'/);
    expect(repair.at(-1)!.content).toMatch(/\n +\d+ \| {5}target: verify\n/);
  });

  it('gives up after maxRepairs with the last diagnostics and every round', async () => {
    const broken = draft({ transitions: [{ from: 'greeting', to: 'nowhere', source: 'Greet the customer.' }] });
    const model = scripted(broken);
    const error = await compileWorkflow(POLICY, { model, maxRepairs: 1 }).catch((caught: unknown) => caught);
    expect(CompileError.isInstance(error)).toBe(true);
    const compileError = error as CompileError;
    expect(compileError.message).toMatch(/^The model's workflow is still invalid after 1 repair round:\n {2}workflow\.yaml:\d+:\d+ error transitions\[0\]\.to: unknown state 'nowhere'/);
    expect(compileError.rounds).toHaveLength(2);
    expect(compileError.diagnostics.some((diagnostic) => diagnostic.code === 'unknown-state')).toBe(true);
    expect(compileError.text).toContain('to: nowhere');
    expect(model.calls).toHaveLength(2);
  });

  it('flags a source that is not a quote of the policy, without repairing it', async () => {
    const paraphrased = draft();
    paraphrased.constraints[1]!.source = 'Always say bye at the end.';
    const result = await compileWorkflow(POLICY, { model: scripted(paraphrased) });
    expect(result.unquoted).toEqual([{ path: 'constraints[1]', source: 'Always say bye at the end.' }]);
    expect(result.diagnostics).toMatchObject([{ severity: 'warning', code: 'source-not-in-policy', path: 'constraints[1].source', message: 'the source "Always say bye at the end." is not a quote of the policy' }]);
    expect(result.yaml).toMatch(/# CHECK: this source is not a quote of the policy\n {2}- name: say_goodbye/);
  });

  it('accepts quotes that differ only in case, spacing, typographic quotes and an ellipsis', async () => {
    const loose = draft();
    loose.states[1]!.source = 'verify the customer’s   identity … any refund';
    expect((await compileWorkflow(POLICY, { model: scripted(loose) })).unquoted).toEqual([]);
  });

  it('repairs an answer that is not JSON, and fails with it when the model keeps refusing', async () => {
    const repaired = await compileWorkflow(POLICY, { model: scripted('not json at all', JSON.stringify(draft())) });
    expect(repaired.rounds[0]!.diagnostics).toEqual([{ severity: 'error', code: 'not-json', path: '', message: 'the answer is not JSON: "not json at all"', hint: 'answer with one JSON object that follows the JSON Schema, and nothing else' }]);
    const refusal = await failure(compileWorkflow(POLICY, { model: scripted("I'm sorry, I can't help with that."), maxRepairs: 2 }));
    expect(refusal.message).toContain(`error the answer is not JSON: "I'm sorry, I can't help with that."`);
    expect(refusal.rounds).toHaveLength(3);
  });

  it('reports an answer of the wrong shape by field', async () => {
    const error = await failure(compileWorkflow(POLICY, { model: scripted({ name: 'x', states: 'none' }), maxRepairs: 0 }));
    expect(error.diagnostics).toContainEqual(expect.objectContaining({ code: 'draft-shape', path: 'states' }));
  });

  it('ends with the cause when the model call throws or outlives its budget', async () => {
    const thrown = await failure(compileWorkflow(POLICY, { model: scripted(new Error('429 rate limited')) }));
    expect(thrown.message).toBe('The model call failed in round 1 of compiling the workflow: 429 rate limited');
    expect((thrown.cause as Error).message).toBe('429 rate limited');
    const immediate = { setTimeout: (run: () => void) => (queueMicrotask(run), 0 as unknown as ReturnType<typeof setTimeout>), clearTimeout: () => undefined };
    const slow = await failure(compileWorkflow(POLICY, { model: () => new Promise(() => undefined), timeoutMs: 5, timers: immediate }));
    expect(slow.message).toBe('The model call failed in round 1 of compiling the workflow: no answer within 5 ms');
  });

  it('refuses a state classified by a tool the agent does not have', async () => {
    const model = scripted(draft(), draft());
    const result = await failure(compileWorkflow(POLICY, { model, tools: ['verify_identity'] }));
    expect(result.diagnostics).toContainEqual(expect.objectContaining({ code: 'unknown-tool', message: "state 'refund' is classified by tool 'issue_refund', which the agent does not have" }));
  });

  it('checks its options before calling the model', async () => {
    await expect(compileWorkflow('  ', { model: scripted(draft()) })).rejects.toThrow('Invalid option `policyText`');
    await expect(compileWorkflow(POLICY, { model: scripted(draft()), maxRepairs: -1 })).rejects.toThrow('Invalid option `maxRepairs`: received -1');
  });
});

describe('compileRulebase', () => {
  const tools = [
    { name: 'get_order', parameters: { properties: { order_id: {} } } },
    { name: 'issue_refund', parameters: { properties: { order_id: {} } } },
  ];
  const policy = 'Refund only orders that were delivered. Ask the customer to confirm the refund first.';

  it('writes each item under its source and checks it against the tools', async () => {
    const items = [
      { kind: 'data', text: 'data order_status(O, S) from get_order(order_id: O) -> S = $.status ttl 60s', source: 'Refund only orders that were delivered.' },
      { kind: 'askable', text: 'askable confirms_refund(O) "Refund order {O}? (yes/no)"', source: 'Ask the customer to confirm the refund first.' },
      { kind: 'guard', text: 'guard issue_refund(order_id: O) :- order_status(O, "delivered"), confirms_refund(O).', source: 'Refund only orders that were delivered.' },
    ];
    const wrongTool = { items: [...items.slice(0, 2), { ...items[2]!, text: 'guard refund(order_id: O) :- order_status(O, "delivered").' }] };
    const model = scripted(wrongTool, { items });
    const result = await compileRulebase(policy, { model, tools });
    expect(result.rounds).toHaveLength(2);
    expect(model.calls[1]!.at(-1)!.content).toContain("refund");
    expect(result.text).toContain('# source: "Ask the customer to confirm the refund first."\naskable confirms_refund(O)');
    expect([...result.rulebase.guards.keys()]).toEqual(['issue_refund']);
  });
});
