import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CompileError, compileRubrics, withUsage, type CompilerMessage, type CompilerModel, type RubricDraft } from '../../src/authoring/index.js';
import { parseRubrics } from '../../src/judge/index.js';

const POLICY = `# Mail desk
Only send an e-mail the user asked for. Never put a customer's account number in an e-mail to a third party.
Be polite.`;

/** A scripted compiler model: answers in order (the last repeats), and records every conversation it was sent. */
function scripted(...answers: unknown[]): CompilerModel & { calls: CompilerMessage[][]; schemas: unknown[] } {
  const calls: CompilerMessage[][] = [];
  const schemas: unknown[] = [];
  const model = async (messages: CompilerMessage[], schema: Record<string, unknown>) => {
    calls.push(structuredClone(messages));
    schemas.push(schema);
    return answers[Math.min(calls.length - 1, answers.length - 1)];
  };
  return Object.assign(model, { calls, schemas });
}

/** A valid draft of POLICY; `change` edits a copy. */
function draft(change: (draft: RubricDraft) => void = () => undefined): RubricDraft {
  const value: RubricDraft = {
    rubrics: [
      {
        id: 'outgoing_mail',
        description: 'An e-mail the agent sends is one the user asked for and carries no account number to a third party.',
        scope: 'tool_call',
        applies_to: { tools: ['send_email'] },
        criteria: [
          { id: 'requested', description: 'The user asked for this e-mail.', scale: 'binary', weight: 2, source: 'Only send an e-mail the user asked for.' },
          { id: 'no_account_number', description: 'No account number goes to a third party.', scale: 'binary', fail_below: 1, source: "Never put a customer's account number in an e-mail to a third party." },
        ],
        pass_at: 1,
        on_fail: 'ask',
        on_error: 'deny',
        tool_results: 0,
        source: 'Only send an e-mail the user asked for.',
      },
      {
        id: 'polite',
        description: 'The response is polite.',
        scope: 'turn',
        criteria: [{ id: 'tone', description: 'Polite tone.', scale: 'likert_5', anchors: [{ score: 1, text: 'rude' }, { score: 5, text: 'courteous' }], source: 'Be polite.' }],
        pass_at: 0.5,
        on_fail: 'warn',
        on_error: 'allow',
        source: 'Be polite.',
      },
    ],
  };
  change(value);
  return value;
}

describe('compileRubrics', () => {
  it('accepts a valid first draft: a commented rubric file that parseRubrics loads, sources above each item, usage added up', async () => {
    const model = scripted(withUsage(draft(), { inputTokens: 900, outputTokens: 250 }));
    const result = await compileRubrics(POLICY, { model, tools: ['send_email', 'read_file'], header: ['Drafted from mail.md.'] });
    expect(result.rounds).toHaveLength(1);
    expect(result.usage).toEqual({ inputTokens: 900, outputTokens: 250 });
    expect(result.unquoted).toEqual([]);
    expect(result.yaml).toMatch(/^# yaml-language-server: \$schema=\.\/node_modules\/panoptes\/rubric\.schema\.json\n# Drafted from mail\.md\.\n/);
    expect(result.yaml).toContain('  # source: "Only send an e-mail the user asked for."\n  - id: outgoing_mail');
    expect(result.yaml).toContain('tools: [ send_email ]');
    const loaded = parseRubrics(result.yaml);
    expect(loaded.map((rubric) => [rubric.id, rubric.scope, rubric.toolResults])).toEqual([
      ['outgoing_mail', 'tool_call', 0],
      ['polite', 'turn', undefined],
    ]);
    expect(loaded[1]!.criteria[0]!.anchors).toEqual({ 1: 'rude', 5: 'courteous' });
    expect(result.rubrics).toHaveLength(2);
    // The prompt teaches the scopes, scales and actions, and the policy and tools reach the model.
    const system = model.calls[0]![0]!.content;
    for (const word of ['tool_call:', 'turn:', 'conversation:', 'likert_5', 'fail_below', 'on_error', 'tool_results to 0']) expect(system).toContain(word);
    expect(model.calls[0]![1]!.content).toContain('Never put a customer');
    expect(model.calls[0]![1]!.content).toContain('- send_email');
    expect(model.schemas[0]).toMatchObject({ type: 'object', required: ['rubrics'] });
  });

  it('sends the positioned errors back (an anchor off its scale) and accepts the repair', async () => {
    const broken = draft((value) => {
      value.rubrics[1]!.criteria[0]!.anchors = [{ score: 9, text: 'beyond the scale' }];
    });
    const model = scripted(broken, draft());
    const result = await compileRubrics(POLICY, { model });
    expect(result.rounds.map((round) => round.diagnostics.filter((diagnostic) => diagnostic.severity === 'error').map((diagnostic) => diagnostic.code))).toEqual([['out-of-scale'], []]);
    const repair = model.calls[1]!;
    expect(repair.at(-2)).toMatchObject({ role: 'assistant' });
    expect(repair.at(-1)!.content).toMatch(/policy\.rubrics\.yaml:\d+:\d+ error rubrics\[1\]\.criteria\[0\]\.anchors\["9"\]: anchor '9' is not a score of the likert_5 scale/);
    expect(repair.at(-1)!.content).toMatch(/\n +\d+ \| +9: beyond the scale\n/);
  });

  it('an answer that is not the draft shape is a round with a diagnostic, repaired like any other', async () => {
    const model = scripted({ rubrics: [{ id: 'x' }] }, JSON.stringify(draft()));
    const result = await compileRubrics(POLICY, { model });
    expect(result.rounds[0]!.diagnostics[0]).toMatchObject({ severity: 'error', code: 'draft-shape', path: 'rubrics[0].description' });
    expect(result.rounds).toHaveLength(2);
  });

  it('a tool the agent does not have is an error at its line; an empty draft is an error', async () => {
    const wrongTool = draft((value) => {
      value.rubrics[0]!.applies_to = { tools: ['send_mail'] };
    });
    const error = await compileRubrics(POLICY, { model: scripted(wrongTool), tools: ['send_email'], maxRepairs: 0 }).catch((caught: unknown) => caught);
    expect(CompileError.isInstance(error)).toBe(true);
    expect((error as CompileError).message).toMatch(/^The model's rubric file is still invalid after 0 repair rounds:\n {2}policy\.rubrics\.yaml:\d+:\d+ error rubrics\[0\]\.applies_to\.tools\[0\]: rubric 'outgoing_mail' applies to tool 'send_mail', which the agent does not have; the agent's tools: send_email/);
    expect((error as CompileError).text).toContain('send_mail');

    const empty = await compileRubrics(POLICY, { model: scripted({ rubrics: [] }), maxRepairs: 0 }).catch((caught: unknown) => caught as CompileError);
    expect((empty as CompileError).diagnostics.map((diagnostic) => diagnostic.code)).toContain('no-rubrics');
  });

  it('gives up after maxRepairs with the duplicate id error and every round', async () => {
    const duplicate = draft((value) => {
      value.rubrics[1]!.id = 'outgoing_mail';
    });
    const model = scripted(duplicate);
    const error = (await compileRubrics(POLICY, { model, maxRepairs: 1 }).catch((caught: unknown) => caught)) as CompileError;
    expect(CompileError.isInstance(error)).toBe(true);
    expect(error.rounds).toHaveLength(2);
    expect(error.message).toMatch(/rubrics\[1\]\.id: .*outgoing_mail/);
    expect(model.calls).toHaveLength(2);
  });

  it('flags a source that is not a quote of the policy with # CHECK and a positioned warning, without repairing it', async () => {
    const paraphrased = draft((value) => {
      value.rubrics[1]!.criteria[0]!.source = 'Always be nice.';
    });
    const result = await compileRubrics(POLICY, { model: scripted(paraphrased) });
    expect(result.rounds).toHaveLength(1);
    expect(result.unquoted).toEqual([{ path: 'rubrics[1].criteria[0]', source: 'Always be nice.' }]);
    expect(result.yaml).toContain('# source: "Always be nice."\n      # CHECK: this source is not a quote of the policy\n      - id: tone');
    expect(result.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', code: 'source-not-in-policy', path: 'rubrics[1].criteria[0].source', line: expect.any(Number) })]);
    expect((parse(result.yaml) as { rubrics: unknown[] }).rubrics).toHaveLength(2);
  });
});
