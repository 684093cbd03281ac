import { describe, expect, it, vi } from 'vitest';
import { createJudge, judgeCondition, judgeToolCall, judgeTurn, parseRubrics, scriptedJudge, type ChatMessage } from '../../src/index.js';

const rubrics = parseRubrics(`
rubrics:
  - id: outgoing_mail
    description: The e-mail is one the user asked for.
    scope: tool_call
    applies_to: { tools: [send_email] }
    criteria: [{ id: requested, description: the user asked for it }]
    pass_at: 1
    on_fail: block
    on_error: deny
  - id: recipient_known
    description: The recipient appears in the user's request.
    scope: tool_call
    applies_to: { tools: [send_email] }
    criteria: [{ id: known, description: the recipient is in the request }]
    pass_at: 1
    on_fail: ask
    on_error: ask
  - id: style
    description: Polite.
    scope: turn
    criteria: [{ id: polite, description: polite }]
    pass_at: 1
    on_fail: warn
    on_error: allow
`);
const messages: ChatMessage[] = [{ role: 'user', content: 'Send the report to bob@example.com' }];
const quiet = { warn: vi.fn() };
const verdict = (id: string, score: number, reasoning = '') => ({ criteria: [{ id, score, reasoning, evidence: [] }], confidence: 0.9 });

/** A judge whose answer per rubric is given: a score, or 'throw'. */
function judgeWith(answers: Record<string, number | 'throw'>) {
  return createJudge({
    model: scriptedJudge(({ rubric }) => {
      const answer = answers[rubric.id]!;
      if (answer === 'throw') throw new Error('provider down');
      return verdict(rubric.criteria[0]!.id, answer, `${rubric.id} says ${answer}`);
    }),
    rubrics,
    logger: quiet,
  });
}

describe('judgeToolCall', () => {
  const call = { name: 'send_email', args: { to: 'eve@evil.test' } };

  it('allows a call every rubric passes, and a call no rubric applies to', async () => {
    expect(await judgeToolCall(judgeWith({ outgoing_mail: 1, recipient_known: 1 }), { call, messages })).toMatchObject({ decision: 'allow', reasons: [] });
    const none = await judgeToolCall(judgeWith({}), { call: { name: 'read_file', args: {} }, messages });
    expect(none).toMatchObject({ decision: 'allow', judgments: [] });
  });

  it('the strictest answer wins: deny over ask', async () => {
    const asked = await judgeToolCall(judgeWith({ outgoing_mail: 1, recipient_known: 0 }), { call, messages });
    expect(asked).toMatchObject({ decision: 'ask', reasons: ["rubric 'recipient_known' failed with score 0.00: known 0 (recipient_known says 0); on_fail: ask"] });
    expect(asked.message).toBe("A policy check did not pass: The recipient appears in the user's request. recipient_known says 0");
    const denied = await judgeToolCall(judgeWith({ outgoing_mail: 0, recipient_known: 0 }), { call, messages });
    expect(denied.decision).toBe('deny');
    expect(denied.reasons).toHaveLength(2);
  });

  it('a judge that fails gives each rubric’s on_error', async () => {
    const failing = await judgeToolCall(judgeWith({ outgoing_mail: 'throw', recipient_known: 1 }), { call, messages });
    expect(failing).toMatchObject({ decision: 'deny', reasons: ["rubric 'outgoing_mail' could not be judged (model: the judge's model failed: provider down); on_error: deny"] });
    expect(failing.message).toBe('This action could not be checked against a policy (The e-mail is one the user asked for.).');
  });
});

describe('judgeTurn', () => {
  it('lets a warned response through and lists the warning', async () => {
    const outcome = await judgeTurn(judgeWith({ style: 0 }), { response: 'Whatever.', messages });
    expect(outcome).toMatchObject({ decision: 'allow', warnings: ["rubric 'style' failed with score 0.00: polite 0 (style says 0); on_fail: warn"] });
  });
});

describe('judgeCondition', () => {
  it('answers judged(rubric): pass true, fail false, errors by on_error, unknown names false', async () => {
    const input = { messages, call: { name: 'send_email', args: {} } };
    expect(await judgeCondition(judgeWith({ outgoing_mail: 1 }))('outgoing_mail', input)).toBe(true);
    expect(await judgeCondition(judgeWith({ outgoing_mail: 0 }))('outgoing_mail', input)).toBe(false);
    expect(await judgeCondition(judgeWith({ outgoing_mail: 'throw' }))('outgoing_mail', input)).toBe(false); // on_error: deny
    expect(await judgeCondition(judgeWith({ recipient_known: 'throw' }))('recipient_known', input)).toBe('ask');
    expect(await judgeCondition(judgeWith({ style: 'throw' }))('style', { messages, response: 'x' })).toBe(true); // on_error: allow
    const logger = { warn: vi.fn() };
    const condition = judgeCondition(judgeWith({}), { logger });
    expect(condition.rubrics).toEqual(['outgoing_mail', 'recipient_known', 'style']);
    expect(await condition('nope', input)).toBe(false);
    await condition('nope', input);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]![0]).toContain('judged(nope): the judge has no rubric of that name');
  });
});
