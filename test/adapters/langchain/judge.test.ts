/**
 * The judge in createAgent + panoptesMiddleware: tool_call rubrics before a call runs (after the rules), turn
 * rubrics before an answer is returned, conversation rubrics in the background; a hanging, failing and over-budget
 * judge each resolved by the rubric's on_error and counted.
 */
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { panoptesMiddleware } from '../../../adapters/langchain/index.js';
import {
  createJudge,
  createMonitor,
  DEFAULT_USER_MESSAGE,
  emptyCassette,
  parseRubrics,
  parseWorkflow,
  recordedJudge,
  scriptedJudge,
  type JudgeModelRequest,
  type JudgeOptions,
  type JudgmentReport,
} from '../../../src/index.js';
import { callTool, describeMessage, recordingLogger, requestsOf } from './helpers.js';

const workflow = parseWorkflow(`
name: mail
states:
  - { name: start, initial: true }
  - { name: mail, classification: { tool_calls: [send_email] } }
transitions:
  - { from: start, to: mail }
  - { from: mail, to: mail }
  - { from: mail, to: start }
`);

const rubricsWith = (toolCall: { onFail: string; onError: string }, extra = '') =>
  parseRubrics(`
rubrics:
  - id: outgoing_mail
    description: The e-mail must be one the user asked for.
    scope: tool_call
    applies_to: { tools: [send_email] }
    criteria: [{ id: requested, description: the user asked for this e-mail }]
    pass_at: 1
    on_fail: ${toolCall.onFail}
    on_error: ${toolCall.onError}
${extra}`);

const NO_PROMISE = `
  - id: no_refund_promise
    description: The agent must not promise a refund amount.
    scope: turn
    criteria: [{ id: no_amount, description: no refund amount is promised }]
    pass_at: 1
    on_fail: intervene
    on_error: allow
`;

/** Fails any e-mail to eve, and any response naming a dollar amount; passes the rest. */
const verdicts = scriptedJudge(({ rubric, judged }: JudgeModelRequest) => {
  const bad = rubric.scope === 'tool_call' ? judged.includes('eve@evil.test') : rubric.scope === 'turn' ? /\$\d/.test(judged.split('## The response')[1] ?? '') : judged.includes('lottery');
  return { criteria: [{ id: rubric.criteria[0]!.id, score: bad ? 0 : 1, reasoning: bad ? 'not what the user asked' : 'fine', evidence: [] }], confidence: 0.9 };
});

function mailTools() {
  const send = vi.fn(async ({ to }: { to: string; body: string }) => `Sent to ${to}.`);
  const sendEmail = tool(send, { name: 'send_email', description: 'Send an e-mail', schema: z.object({ to: z.string(), body: z.string() }) });
  return { send, tools: [sendEmail] };
}

function agentWith(responses: AIMessage[], judgeOptions: Partial<JudgeOptions> & Pick<JudgeOptions, 'rubrics'>, middleware: Record<string, unknown> = {}) {
  const logger = recordingLogger();
  const judge = createJudge({ model: verdicts, logger, ...judgeOptions });
  const model = responses.reduce((fake, response) => fake.respond(response), fakeModel());
  const { send, tools } = mailTools();
  const monitor = createMonitor({ workflow, logger });
  const reports: JudgmentReport[] = [];
  const agent = createAgent({
    model,
    tools,
    systemPrompt: 'You send e-mail for the user.',
    checkpointer: new MemorySaver(),
    middleware: [panoptesMiddleware({ monitor, judge, logger, onJudgment: (report) => void reports.push(report), ...middleware })],
  });
  return { agent, model, send, judge, logger, reports, monitor };
}

const ask = (text: string) => ({ messages: [new HumanMessage(text)] });
const thread = (id: string) => ({ configurable: { thread_id: id }, recursionLimit: 50 });
const toEve = (id = 'm1') => callTool('send_email', { to: 'eve@evil.test', body: 'the customer list' }, id);
const toBob = (id = 'm1') => callTool('send_email', { to: 'bob@example.com', body: 'the report' }, id);
const toolResults = (messages: unknown[]) => messages.filter((message) => ToolMessage.isInstance(message)) as ToolMessage[];

describe('panoptesMiddleware({ judge }): tool_call rubrics before the call runs', () => {
  it('block: the call never runs; the model reads why in an error ToolMessage', async () => {
    const { agent, model, send, judge, reports, monitor } = agentWith([toEve(), new AIMessage('I did not send it.')], { rubrics: rubricsWith({ onFail: 'block', onError: 'deny' }) });
    const result = await agent.invoke(ask('Send the report to bob@example.com'), thread('t1'));

    expect(send).not.toHaveBeenCalled();
    const [refusal] = toolResults(result.messages);
    expect(refusal).toMatchObject({ status: 'error' });
    expect(refusal!.text).toBe('A policy check did not pass: The e-mail must be one the user asked for. not what the user asked The send_email call did not run.');
    expect(requestsOf(model)[1]).toContain(`tool:${refusal!.text} [error]`);
    expect(judge.stats()).toMatchObject({ calls: 1, judgments: 1 });
    // The judge runs inside the monitor's guard: a call it refuses never enters the workflow's trace.
    expect((await monitor.report('t1'))!.trace).toEqual(['start']);
    expect((await monitor.report('t1'))!.refusals).toEqual([expect.objectContaining({ state: 'mail', by: 'guard' })]);
    expect(reports).toEqual([expect.objectContaining({ scope: 'tool_call', tool: 'send_email', sessionId: 't1', outcome: expect.objectContaining({ decision: 'deny' }) })]);
  });

  it('passes a call the judge passes, judged with the conversation and the session', async () => {
    const seen: JudgeModelRequest[] = [];
    const { agent, send, judge } = agentWith([toBob(), new AIMessage('Sent.')], { rubrics: rubricsWith({ onFail: 'block', onError: 'deny' }), model: scriptedJudge((request) => (seen.push(request), verdicts(request))) });
    await agent.invoke(ask('Send the report to bob@example.com'), thread('t1'));
    expect(send).toHaveBeenCalledOnce();
    expect(judge.stats().calls).toBe(1);
    expect(seen[0]!.judged).toContain('Send the report to bob@example.com');
    expect(seen[0]!.judged).toContain('send_email({"body":"the report","to":"bob@example.com"})');
  });

  it('ask: refused with the question for the user (the middleware has no approval path)', async () => {
    const { agent, send } = agentWith([toEve(), new AIMessage('Shall I?')], { rubrics: rubricsWith({ onFail: 'ask', onError: 'deny' }) });
    const result = await agent.invoke(ask('Send the report to bob@example.com'), thread('t1'));
    expect(send).not.toHaveBeenCalled();
    expect(toolResults(result.messages)[0]!.text).toContain('The send_email call did not run: ask the user whether to go ahead, and call it again only once they agree.');
  });

  it('warn: the call runs; the warning is logged once and reported', async () => {
    const { agent, send, logger, reports } = agentWith([toEve('m1'), toEve('m2'), new AIMessage('Sent twice.')], { rubrics: rubricsWith({ onFail: 'warn', onError: 'deny' }) });
    await agent.invoke(ask('Send the report to bob@example.com'), thread('t1'));
    expect(send).toHaveBeenCalledTimes(2);
    expect(logger.warnings.filter((warning) => warning.includes('judge warns on send_email'))).toHaveLength(1);
    expect(reports.map((report) => report.outcome.decision)).toEqual(['allow', 'allow']);
    expect(reports[0]!.outcome.warnings[0]).toContain("rubric 'outgoing_mail' failed");
  });

  it('a call the workflow refuses is never judged (rules first)', async () => {
    const strict = parseWorkflow(`
name: mail
states:
  - { name: start, initial: true }
  - { name: lookup, classification: { tool_calls: [lookup] } }
  - { name: mail, classification: { tool_calls: [send_email] } }
transitions:
  - { from: start, to: lookup }
  - { from: lookup, to: mail }
constraints:
  - { name: lookup_first, type: precedence, trigger: mail, target: lookup, severity: critical }
`);
    const logger = recordingLogger();
    const judge = createJudge({ model: verdicts, rubrics: rubricsWith({ onFail: 'block', onError: 'deny' }), logger });
    const { send, tools } = mailTools();
    const agent = createAgent({ model: fakeModel().respond(toBob()).respond(new AIMessage('ok')), tools, middleware: [panoptesMiddleware({ monitor: createMonitor({ workflow: strict, logger }), judge, logger })] });
    await agent.invoke(ask('Send the report to bob@example.com'), thread('t1'));
    expect(send).not.toHaveBeenCalled();
    expect(judge.stats().judgments).toBe(0);
  });
});

describe('panoptesMiddleware({ judge }): a judge that cannot answer follows on_error, counted', () => {
  it('hanging: past timeoutMs the call is refused (on_error: deny), one timeout counted', async () => {
    const hanging = Object.assign(() => new Promise<never>(() => undefined), { modelId: 'hangs' });
    const { agent, send, judge, logger } = agentWith([toBob(), new AIMessage('Could not.')], { rubrics: rubricsWith({ onFail: 'block', onError: 'deny' }), model: hanging, timeoutMs: 50 });
    const result = await agent.invoke(ask('Send the report to bob@example.com'), thread('t1'));
    expect(send).not.toHaveBeenCalled();
    expect(toolResults(result.messages)[0]!.text).toBe('This action could not be checked against a policy (The e-mail must be one the user asked for.). The send_email call did not run.');
    expect(judge.stats().errors.timeout).toBe(1);
    expect(logger.warnings.filter((warning) => warning.includes('no verdict within 50 ms'))).toHaveLength(1);
  });

  it('failing: a model that throws lets the call run with on_error: allow, one model error counted and logged once', async () => {
    const failing = Object.assign(async () => Promise.reject(new Error('provider down')), { modelId: 'fails' });
    const { agent, send, judge, logger } = agentWith([toBob('m1'), toBob('m2'), new AIMessage('Sent.')], { rubrics: rubricsWith({ onFail: 'block', onError: 'allow' }), model: failing });
    await agent.invoke(ask('Send the report to bob@example.com'), thread('t1'));
    expect(send).toHaveBeenCalledTimes(2);
    expect(judge.stats().errors.model).toBe(2);
    expect(logger.warnings.filter((warning) => warning.includes('provider down'))).toHaveLength(1);
  });

  it('over budget: the second call of a session past its one judge call is refused (on_error: deny), one budget error counted', async () => {
    const { agent, send, judge } = agentWith([toBob('m1'), toBob('m2'), new AIMessage('Done.')], { rubrics: rubricsWith({ onFail: 'block', onError: 'deny' }), budget: { session: { calls: 1 } }, cache: false });
    const result = await agent.invoke(ask('Send the report to bob@example.com'), thread('t1'));
    expect(send).toHaveBeenCalledOnce();
    expect(toolResults(result.messages).map((message) => message.status)).toEqual(['success', 'error']);
    expect(judge.stats()).toMatchObject({ calls: 1, errors: expect.objectContaining({ budget: 1 }) });
  });
});

describe('panoptesMiddleware({ judge }) with a recorded judge', () => {
  it('replays the verdicts a first run recorded, by key; a strict miss is an error resolved by on_error', async () => {
    const cassette = emptyCassette('recorded');
    const rubrics = rubricsWith({ onFail: 'block', onError: 'deny' });
    const recording = agentWith([toEve(), new AIMessage('No.')], { rubrics, model: recordedJudge(cassette, { strict: false, fallback: verdicts }) });
    await recording.agent.invoke(ask('Send the report to bob@example.com'), thread('t1'));
    expect(Object.keys(cassette.entries)).toHaveLength(1);

    const replay = agentWith([toEve(), new AIMessage('No.')], { rubrics, model: recordedJudge(cassette) });
    const replayed = await replay.agent.invoke(ask('Send the report to bob@example.com'), thread('t2'));
    expect(replay.send).not.toHaveBeenCalled();
    expect(toolResults(replayed.messages)[0]!.text).toContain('not what the user asked');
    expect(replay.judge.stats().errors.model).toBe(0);

    const miss = agentWith([toBob(), new AIMessage('No.')], { rubrics, model: recordedJudge(cassette) });
    await miss.agent.invoke(ask('Send the report to bob@example.com'), thread('t3'));
    expect(miss.send).not.toHaveBeenCalled();
    expect(miss.judge.stats().errors.model).toBe(1);
    expect(miss.logger.warnings.join('\n')).toContain('no recorded verdict for key');
  });
});

describe('panoptesMiddleware({ judge }): turn rubrics before the answer is returned', () => {
  const rubrics = parseRubrics(`rubrics:${NO_PROMISE}`);
  const PROMISE = 'You will get $120 back.';
  const SAFE = 'The refund depends on the assessment.';

  it("replace (the default): the thread keeps the workflow's user message; the next call reads why", async () => {
    const { agent, model } = agentWith([new AIMessage(PROMISE), new AIMessage(SAFE)], { rubrics });
    const first = await agent.invoke(ask('How much will I get back?'), thread('t1'));
    expect(describeMessage(first.messages.at(-1)!)).toBe(`ai:${DEFAULT_USER_MESSAGE}`);
    expect(first.messages.at(-1)!.response_metadata).toMatchObject({ panoptes: { judged: { rubrics: ['no_refund_promise'], decision: 'deny' } } });
    expect(first.messages.map(describeMessage).join('\n')).not.toContain('$120');

    await agent.invoke(ask('Well?'), thread('t1'));
    expect(requestsOf(model)[1]![0]).toContain('[POLICY CHECK] Your previous answer was withheld from the user. A policy check did not pass: The agent must not promise a refund amount.');
  });

  it("regenerate: asks the model once more with the finding and delivers a second answer that passes", async () => {
    const { agent, model, judge } = agentWith([new AIMessage(PROMISE), new AIMessage(SAFE)], { rubrics }, { onViolatingText: 'regenerate' });
    const result = await agent.invoke(ask('How much will I get back?'), thread('t1'));
    expect(model.callCount).toBe(2);
    expect(requestsOf(model)[1]![0]).toContain('[POLICY CHECK] Your answer was not shown to the user');
    expect(result.messages.map(describeMessage)).toEqual(['human:How much will I get back?', `ai:${SAFE}`]);
    expect(judge.stats().judgments).toBe(2);
  });

  it('regenerate: a second answer that fails too is replaced; no third call', async () => {
    const { agent, model } = agentWith([new AIMessage(PROMISE), new AIMessage('$120, promise.'), new AIMessage('never')], { rubrics }, { onViolatingText: 'regenerate' });
    const result = await agent.invoke(ask('How much?'), thread('t1'));
    expect(model.callCount).toBe(2);
    expect(describeMessage(result.messages.at(-1)!)).toBe(`ai:${DEFAULT_USER_MESSAGE}`);
  });

  it("deliver (a streamed answer that has left): it goes out, and the next call carries the finding", async () => {
    const { agent, model } = agentWith([new AIMessage(PROMISE), new AIMessage(SAFE)], { rubrics }, { onViolatingText: 'deliver' });
    const first = await agent.invoke(ask('How much will I get back?'), thread('t1'));
    expect(describeMessage(first.messages.at(-1)!)).toBe(`ai:${PROMISE}`);
    await agent.invoke(ask('Thanks'), thread('t1'));
    expect(requestsOf(model)[1]![0]).toContain('[POLICY CHECK] Your previous answer was delivered but did not pass a policy check.');
    // Taken once: a third call has no note.
  });

  it('an answer the workflow withheld is not judged (the rules first)', async () => {
    const { leakBlockedWorkflow, LEAK } = await import('./helpers.js');
    const logger = recordingLogger();
    const judge = createJudge({ model: verdicts, rubrics, logger });
    const agent = createAgent({ model: fakeModel().respond(new AIMessage(LEAK)), tools: [], middleware: [panoptesMiddleware({ monitor: createMonitor({ workflow: leakBlockedWorkflow, logger }), judge, logger })] });
    const result = await agent.invoke(ask('Notes?'), thread('t1'));
    expect(describeMessage(result.messages.at(-1)!)).toBe(`ai:${DEFAULT_USER_MESSAGE}`);
    expect(judge.stats().judgments).toBe(0);
  });

  it('an answer with tool calls is judged by its calls, not as a turn', async () => {
    const { agent, judge } = agentWith([toBob(), new AIMessage(SAFE)], { rubrics });
    await agent.invoke(ask('Send it'), thread('t1'));
    expect(judge.stats().judgments).toBe(1); // the final text only
  });
});

describe('panoptesMiddleware({ judge }): conversation rubrics off the critical path', () => {
  const rubrics = parseRubrics(`
rubrics:
  - id: on_topic
    description: The agent stays on the user's request.
    scope: conversation
    every_turns: 2
    criteria: [{ id: topic, description: on topic }]
    pass_at: 1
    on_fail: intervene
    on_error: allow
`);

  it('judges every second answer in the background; a failure reaches the model on its next call', async () => {
    let judged!: () => void;
    const done = new Promise<void>((resolve) => (judged = resolve));
    const { agent, model, judge } = agentWith([new AIMessage('Hello.'), new AIMessage('Buy a lottery ticket!'), new AIMessage('Back to your e-mail.')], { rubrics }, { onJudgment: () => judged() });
    await agent.invoke(ask('Hi'), thread('t1'));
    expect(judge.stats().judgments).toBe(0); // turn 1: not due
    await agent.invoke(ask('And?'), thread('t1'));
    await done;
    expect(judge.stats().judgments).toBe(1);
    await agent.invoke(ask('Hm?'), thread('t1'));
    expect(requestsOf(model)[2]![0]).toContain("[CONVERSATION REVIEW] A policy check did not pass: The agent stays on the user's request. not what the user asked Correct course in your next reply.");
  });
});

describe('createMonitor({ judge }) under panoptesMiddleware: rubrics on states', () => {
  it("judges an answer in its rubric's state with the thread the middleware passes; the next call reads the finding", async () => {
    const seen: string[] = [];
    const logger = recordingLogger();
    const judge = createJudge({
      model: scriptedJudge((request) => (seen.push(request.judged), verdicts(request))),
      rubrics: parseRubrics(`
rubrics:
  - id: no_refund_promise
    description: After the e-mail went out, the agent must not promise a refund amount.
    scope: turn
    applies_to: { states: [mail] }
    criteria: [{ id: no_amount, description: no amount }]
    pass_at: 1
    on_fail: intervene
    on_error: allow
`),
      logger,
    });
    const monitor = createMonitor({ workflow, judge, logger });
    const judged = new Promise((resolve) => monitor.on('judgment', resolve));
    const model = fakeModel().respond(toBob()).respond(new AIMessage('Sent. You will get $40 back.')).respond(new AIMessage('Anything else?'));
    const agent = createAgent({ model, tools: mailTools().tools, checkpointer: new MemorySaver(), middleware: [panoptesMiddleware({ monitor, logger })] });
    await agent.invoke(ask('Send the report to bob@example.com'), thread('t1'));
    await judged;
    expect(seen[0]).toContain('Send the report to bob@example.com'); // the user's message, from the middleware
    await agent.invoke(ask('Thanks'), thread('t1'));
    expect(requestsOf(model)[2]!.join('\n')).toContain("[POLICY CHECK] Your last answer (in state 'mail') did not pass a policy check.");
  });
});

describe('panoptesMiddleware({ judge }) without a monitor', () => {
  it('judges turns with a sentinel alone', async () => {
    const { refundSentinels } = await import('./helpers.js');
    const judge = createJudge({ model: verdicts, rubrics: parseRubrics(`rubrics:${NO_PROMISE}`), logger: recordingLogger() });
    const agent = createAgent({ model: fakeModel().respond(new AIMessage('You get $50.')), tools: [], middleware: [panoptesMiddleware({ sentinel: refundSentinels(), judge, logger: recordingLogger() })] });
    const result = await agent.invoke(ask('Refund?'), thread('t1'));
    expect(describeMessage(result.messages.at(-1)!)).toBe(`ai:${DEFAULT_USER_MESSAGE}`);
  });

  it('rejects a judge option that is not a judge', () => {
    expect(() => panoptesMiddleware({ monitor: createMonitor({ workflow }), judge: { rubrics: [] } as never })).toThrow(/judge.*createJudge/s);
  });
});
