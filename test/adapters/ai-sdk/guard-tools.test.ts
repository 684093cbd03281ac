import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel, type ToolExecutionOptions } from 'ai';
import { describe, expect, it, vi } from 'vitest';
import { guardTools, panoptesMiddleware, policyTools, ToolCallRefusedError } from '../../../adapters/ai-sdk/index.js';
import { createMonitor, createSentinelSessions, InvalidOptionError, parseRulebase, type Sentinel } from '../../../src/index.js';
import { REFUND_RULES, refundSetup } from '../../guards/helpers.js';
import { callTool, recordingLogger, refusalFrom, refusalIn, say, sequenceModel, workflow } from './fixtures.js';

const bookingInput = jsonSchema<{ booking_id: string }>({ type: 'object', properties: { booking_id: { type: 'string' } }, required: ['booking_id'] });
const executionOptions: ToolExecutionOptions = { toolCallId: 'c1', messages: [] };

/** The refund rules of DESIGN.md section 10, with an issue_refund tool that records its calls. */
function refundWorld() {
  const setup = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
  const refunds: string[] = [];
  const tools = {
    issue_refund: tool({ description: 'Refund a booking', inputSchema: bookingInput, execute: async ({ booking_id }) => (refunds.push(booking_id), `Refunded ${booking_id}.`) }),
  };
  return { ...setup, tools, refunds };
}

describe('guardTools with a sentinel', () => {
  it('refuses a call the rules do not allow with the blockers instead of running it, and the model reads why', async () => {
    const { sentinel, tools, refunds } = refundWorld();
    const mock = sequenceModel(callTool('issue_refund', 'r1', { booking_id: 'B1' }), say('Which booking do you mean?'));
    const result = await generateText({ model: mock, tools: guardTools(tools, { sentinel }), prompt: 'Refund B1.', stopWhen: stepCountIs(3) });

    expect(refunds).toEqual([]);
    const refusal = refusalIn(result.steps[0]!.content, 'r1');
    expect(refusal).toMatchObject({ by: 'sentinel', tool: 'issue_refund', status: 'blocked', blockers: [{ kind: 'bind-context', name: 'booking_of_interest' }] });
    const reason = refusal!.reason;
    expect(reason).toContain('booking_of_interest');
    expect(mock.doGenerateCalls[1]!.prompt.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'r1', toolName: 'issue_refund', output: { type: 'error-text', value: reason } }],
    });
  });

  it('runs the call once the facts prove it allowed', async () => {
    const { sentinel, facts, tools, refunds } = refundWorld();
    const guarded = guardTools(tools, { sentinel });
    sentinel.bindContext('booking_of_interest', 'B1');
    const asking = await refusalFrom(guarded.issue_refund.execute!({ booking_id: 'B1' }, executionOptions));
    expect(asking).toMatchObject({ status: 'blocked', blockers: expect.arrayContaining([expect.objectContaining({ kind: 'ask', goal: 'customer_confirms("B1")' })]) });
    facts.assert('customer_confirms', ['B1'], { source: 'user' });
    expect(await guarded.issue_refund.execute!({ booking_id: 'B1' }, executionOptions)).toBe('Refunded B1.');
    expect(refunds).toEqual(['B1']);
  });

  it('asks the monitor first: a call the workflow refuses never reaches the sentinel', async () => {
    const { sentinel, tools, refunds, calls } = refundWorld();
    const check = vi.spyOn(sentinel, 'check');
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const guarded = guardTools(tools, { monitor, sentinel, sessionId: 's1' });
    const refusal = await refusalFrom(guarded.issue_refund.execute!({ booking_id: 'B1' }, executionOptions));
    expect(refusal).toMatchObject({ by: 'monitor', constraints: ['verify_first'] });
    expect(check).not.toHaveBeenCalled();
    expect(calls).toEqual([]); // the sentinel's data tool was never called
    expect(refunds).toEqual([]);
    expect((await monitor.report('s1'))!).toMatchObject({ trace: ['greeting'], refusals: [expect.objectContaining({ state: 'account_action', by: 'workflow' })] });
  });

  it('when the monitor throws, the sentinel still decides: the monitor fails open, the rules never do', async () => {
    const { sentinel, tools, refunds } = refundWorld();
    const logger = recordingLogger();
    const broken = { ...createMonitor({ workflow }), beforeTool: () => Promise.reject(new Error('store unreachable')) };
    const guarded = guardTools(tools, { monitor: broken, sentinel, sessionId: 's1', logger });
    expect(await refusalFrom(guarded.issue_refund.execute!({ booking_id: 'B1' }, executionOptions))).toMatchObject({ by: 'sentinel', status: 'blocked' });
    expect(refunds).toEqual([]);
    expect(logger.warnings).toEqual([expect.stringMatching(/^\[panoptes\] The pre-emptive check \(monitor.beforeTool\) failed/)]);
  });

  it('works with the middleware in one loop; a call the sentinel refuses does not enter the workflow trace', async () => {
    const { sentinel, tools, refunds } = refundWorld();
    sentinel.bindContext('booking_of_interest', 'B1');
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const mock = sequenceModel(callTool('verify_identity', 'v1'), callTool('issue_refund', 'r1', { booking_id: 'B1' }), say('Shall I go ahead?'));
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor }) });
    const verify = tool({ inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }), execute: async () => 'verified' });
    const result = await generateText({
      model,
      tools: guardTools({ ...tools, verify_identity: verify }, { monitor, sentinel: withVerifyAllowed(sentinel), sessionId: ({ experimental_context }) => (experimental_context as { ticket: string }).ticket }),
      experimental_context: { ticket: 'T-7' },
      providerOptions: { panoptes: { sessionId: 'T-7' } },
      prompt: 'Refund B1.',
      stopWhen: stepCountIs(4),
    });
    expect(refusalIn(result.steps[1]!.content)).toMatchObject({ by: 'sentinel', blockers: expect.arrayContaining([expect.objectContaining({ kind: 'ask' })]) });
    expect(refunds).toEqual([]);
    const report = (await monitor.report('T-7'))!;
    expect(report.trace).toEqual(['greeting', 'verify_identity']);
    expect(report.refusals).toEqual([expect.objectContaining({ state: 'account_action', by: 'guard' })]);
  });
});

describe('guardTools and policyTools with per-conversation sentinels', () => {
  it("judges each conversation's calls by its own facts: one customer's confirmation never lets another's refund through", async () => {
    const bookings: Record<string, unknown> = { B1: { status: 'cancelled_by_airline', delay_minutes: 0 } };
    const sentinels = createSentinelSessions({ rulebase: parseRulebase(REFUND_RULES), tools: { get_booking: { execute: async (args) => bookings[String(args.booking_id)] } } });
    const { tools, refunds } = refundWorld();
    const sessionId = ({ experimental_context }: ToolExecutionOptions) => (experimental_context as { customer: string }).customer;
    const allTools = { ...guardTools(tools, { sentinel: sentinels, sessionId }), ...policyTools(sentinels, { sessionId }) };

    const alice = sequenceModel(
      callTool('set_context', 's1', { name: 'booking_of_interest', value: 'B1' }),
      callTool('record_confirmation', 'c1', { goal: 'customer_confirms("B1")', answer: 'yes' }),
      callTool('issue_refund', 'r1', { booking_id: 'B1' }),
      say('Refunded.'),
    );
    await generateText({ model: alice, tools: allTools, experimental_context: { customer: 'alice' }, prompt: 'Refund B1, I confirm.', stopWhen: stepCountIs(5) });
    expect(refunds).toEqual(['B1']);

    const bob = sequenceModel(callTool('issue_refund', 'r2', { booking_id: 'B1' }), say('Which booking?'));
    const result = await generateText({ model: bob, tools: allTools, experimental_context: { customer: 'bob' }, prompt: 'Refund B1.', stopWhen: stepCountIs(3) });
    expect(refusalIn(result.steps[0]!.content)).toMatchObject({ by: 'sentinel', blockers: [{ kind: 'bind-context', name: 'booking_of_interest' }] });
    expect(refunds).toEqual(['B1']);
  });

  it('needs a way to find each call\'s conversation', () => {
    const sentinels = createSentinelSessions({ rulebase: parseRulebase(REFUND_RULES), tools: { get_booking: { execute: async () => ({}) } } });
    expect(() => guardTools(refundWorld().tools, { sentinel: sentinels })).toThrow(expect.objectContaining({ parameter: 'sessionId' }));
  });
});

describe('guardTools without a sessionId', () => {
  it('skips the monitor, with one warning, for a call no middleware recorded, and the monitor judges it next call', async () => {
    const logger = recordingLogger();
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const { tools, refunds } = refundWorld();
    const guarded = guardTools(tools, { monitor, logger });
    expect(await guarded.issue_refund.execute!({ booking_id: 'B1' }, executionOptions)).toBe('Refunded B1.');
    expect(await guarded.issue_refund.execute!({ booking_id: 'B2' }, { ...executionOptions, toolCallId: 'c2' })).toBe('Refunded B2.');
    expect(refunds).toEqual(['B1', 'B2']);
    expect(logger.warnings).toEqual([expect.stringContaining("No session is known for tool call 'c1'")]);
  });
});

describe('guardTools, host details', () => {
  it('keeps a streaming tool streaming, and a refused one throws the refusal before it yields anything', async () => {
    const { sentinel } = refundWorld();
    const progress = tool({
      inputSchema: bookingInput,
      async *execute({ booking_id }) {
        yield { status: 'working', booking_id };
        yield { status: 'done', booking_id };
      },
    });
    const guarded = guardTools({ issue_refund: progress, get_booking: progress }, { sentinel });
    const collect = async (iterable: unknown) => {
      const seen: unknown[] = [];
      for await (const value of iterable as AsyncIterable<unknown>) seen.push(value);
      return seen;
    };
    expect(await collect(guarded.get_booking.execute!({ booking_id: 'B1' }, executionOptions))).toEqual([
      { status: 'working', booking_id: 'B1' },
      { status: 'done', booking_id: 'B1' },
    ]); // a data tool: allowed without a guard
    expect(await refusalFrom(collect(guarded.issue_refund.execute!({ booking_id: 'B1' }, executionOptions)))).toMatchObject({ by: 'sentinel', tool: 'issue_refund' });
  });

  it("keeps the tool's own toModelOutput and needsApproval: only execute is wrapped when nothing asks for approval", () => {
    const { sentinel } = refundWorld();
    const toModelOutput = ({ output }: { output: number }) => ({ type: 'text' as const, value: `answer ${output}` });
    const custom = tool({ inputSchema: bookingInput, execute: async () => 42, toModelOutput });
    const never = tool({ inputSchema: bookingInput, execute: async () => 42, needsApproval: false });
    const guarded = guardTools({ get_booking: custom, other: never }, { sentinel });
    expect(guarded.get_booking.toModelOutput).toBe(toModelOutput);
    expect(guarded.get_booking.needsApproval).toBeUndefined();
    expect(guarded.other.needsApproval).toBe(false);
  });

  it('leaves tools without execute as they are', () => {
    const { sentinel } = refundWorld();
    const clientSide = tool({ inputSchema: bookingInput });
    expect(guardTools({ ask_user: clientSide }, { sentinel }).ask_user).toBe(clientSide);
  });

  it('rejects bad options at construction', () => {
    const { sentinel, tools } = refundWorld();
    const monitor = createMonitor({ workflow });
    expect(() => guardTools(tools, {})).toThrow(InvalidOptionError);
    expect(() => guardTools(tools, { monitor, sessionId: '' })).toThrow('Invalid option `sessionId`: received "".');
    expect(() => guardTools(tools, { sentinel: {} as Sentinel })).toThrow('Invalid option `sentinel`');
  });

  it('refuses with an error that says who refused, told apart from the other errors of its code', async () => {
    const { sentinel, tools } = refundWorld();
    const error = await Promise.resolve(guardTools(tools, { sentinel }).issue_refund.execute!({ booking_id: 'B1' }, executionOptions)).catch((thrown: unknown) => thrown);
    expect(ToolCallRefusedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'TOOL_CALL_DENIED', name: 'ToolCallRefusedError', refusal: { by: 'sentinel', tool: 'issue_refund' } });
    expect((error as Error).message).toBe((error as ToolCallRefusedError).refusal.reason);
    expect(ToolCallRefusedError.isInstance(await sentinel.assertAllowed('issue_refund', { booking_id: 'B1' }).catch((thrown: unknown) => thrown))).toBe(false);
  });
});

/** A sentinel that treats verify_identity as allowed, as a rulebase with `unguardedTools: 'allow'` would. */
function withVerifyAllowed(sentinel: Sentinel): Sentinel {
  return { ...sentinel, check: (name, args) => (name === 'verify_identity' ? allowAll(sentinel).check(name, args) : sentinel.check(name, args)) };
}

function allowAll(sentinel: Sentinel): Sentinel {
  return { ...sentinel, check: async (tool, args) => ({ allowed: true, status: 'proved', tool, args, blockers: [], text: `${tool} is allowed.`, message: 'allowed' }) };
}
