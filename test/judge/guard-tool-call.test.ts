import { describe, expect, it, vi } from 'vitest';
import { createJudge, createMonitor, guardJudgedToolCall, judgedRefusal, parseRubrics, scriptedJudge, type Monitor } from '../../src/index.js';
import { refundSetup } from '../guards/helpers.js';
import { workflow } from '../adapters/ai-sdk/fixtures.js';

const rubrics = parseRubrics(`
rubrics:
  - id: refund_ok
    description: The refund is the one the user asked for.
    scope: tool_call
    applies_to: { tools: [issue_refund, verify_identity] }
    criteria: [{ id: ok, description: asked for }]
    pass_at: 1
    on_fail: ask
    on_error: deny
`);
const quiet = { warn: () => {} };
const judgeSaying = (score: 0 | 1) => {
  const model = vi.fn(scriptedJudge(() => ({ criteria: [{ id: 'ok', score, reasoning: score ? 'Asked for.' : 'Not asked for.', evidence: [] }], confidence: 0.9 })));
  return { judge: createJudge({ model: Object.assign(model, { modelId: 'scripted' }), rubrics, logger: quiet }), model };
};

describe('guardJudgedToolCall', () => {
  it('without a judge is guardToolCall', async () => {
    expect(await guardJudgedToolCall({ name: 'issue_refund', args: {} }, {})).toEqual({ allowed: true });
  });

  it('asks the rules first: a call the sentinel refuses is never judged', async () => {
    const { sentinel } = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const { judge, model } = judgeSaying(1);
    const decision = await guardJudgedToolCall({ name: 'issue_refund', args: { booking_id: 'B1' } }, { sentinel, judge, messages: [] });
    expect(decision).toMatchObject({ allowed: false, by: 'rules' });
    expect(model).not.toHaveBeenCalled();
  });

  it('a rubric that asks refuses until the call is approved; approved, it runs, the judgment reused', async () => {
    const { judge, model } = judgeSaying(0);
    const call = { name: 'issue_refund', args: { booking_id: 'B1' } };
    const asked = await guardJudgedToolCall(call, { judge, messages: [{ role: 'user', content: 'Refund B1.' }], sessionId: 's' });
    expect(asked).toMatchObject({ allowed: false, by: 'judge', refusal: { by: 'judge', tool: 'issue_refund', decision: 'ask' } });
    if (asked.allowed || asked.by !== 'judge') throw new Error('expected the judge to ask');
    expect(await guardJudgedToolCall(call, { judge, approved: true, judged: asked.judged })).toMatchObject({ allowed: true, judged: { decision: 'ask' } });
    expect(model).toHaveBeenCalledTimes(1);
  });

  it('with a monitor: a call the judge refuses is recorded as refused, never entered', async () => {
    const monitor = createMonitor({ workflow, logger: quiet });
    const { judge } = judgeSaying(0);
    const decision = await guardJudgedToolCall({ name: 'verify_identity', args: {} }, { monitor, sessionId: 's1', judge });
    expect(decision).toMatchObject({ allowed: false, by: 'judge' });
    expect(await monitor.report('s1')).toMatchObject({ trace: ['greeting'], refusals: [expect.objectContaining({ state: 'verify_identity', by: 'guard' })] });
  });

  it('a monitor that fails lets the rules decide alone, and the judge is still asked', async () => {
    const broken = { beforeTool: () => Promise.reject(new Error('store down')) } as unknown as Monitor;
    const onMonitorError = vi.fn();
    const { judge, model } = judgeSaying(0);
    const decision = await guardJudgedToolCall({ name: 'issue_refund', args: {} }, { monitor: broken, sessionId: 's1', onMonitorError, judge });
    expect(onMonitorError).toHaveBeenCalledTimes(1);
    expect(model).toHaveBeenCalledTimes(1);
    expect(decision).toMatchObject({ allowed: false, by: 'judge' });
  });

  it('judgedRefusal words a denial and a question differently', () => {
    const outcome = { decision: 'deny' as const, reasons: ['r'], warnings: [], judgments: [], message: 'A policy check did not pass: x.' };
    expect(judgedRefusal('send_email', outcome).reason).toBe('send_email did not run: A policy check did not pass: x. Do not try it again in another form; tell the user what was refused, or do what they asked instead.');
    expect(judgedRefusal('send_email', { ...outcome, decision: 'ask' }).decision).toBe('ask');
  });
});
