/**
 * The judge in wrapModelNode, in a real StateGraph: turn rubrics on an answer with text and no tool calls before the
 * node returns it (replace, regenerate, deliver), conversation rubrics in the background, the findings in the
 * session's next call.
 */
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel, type FakeBuiltModel } from '@langchain/core/testing';
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { createGraphMonitor, PanoptesAnnotation, wrapModelNode, type WrapModelNodeOptions } from '../../../adapters/langgraph/index.js';
import { createJudge, DEFAULT_USER_MESSAGE, InvalidOptionError, parseRubrics, parseWorkflow, scriptedJudge, type JudgeModel, type JudgeModelRequest, type JudgmentReport } from '../../../src/index.js';
import { hangingModel } from '../judge-fixtures.js';
import { callTool, describeMessage, recordingLogger, requestsOf } from '../langchain/helpers.js';

const SYSTEM = 'You are a support agent.';
const PROMISE = 'You will get $120 back.';
const HEDGE = 'We will assess the damage first.';
const workflow = parseWorkflow(`
name: support
states:
  - { name: talk, initial: true }
  - { name: mail, classification: { tool_calls: [send_email] } }
transitions:
  - { from: talk, to: talk }
  - { from: talk, to: mail }
  - { from: mail, to: talk }
`);
const NO_PROMISE = `
  - id: no_refund_promise
    description: The agent must not promise a refund amount.
    scope: turn
    criteria: [{ id: no_amount, description: no refund amount is promised }]
    pass_at: 1
    on_fail: intervene
    on_error: allow
`;
const TONE = `
  - id: tone
    description: The agent does not push products.
    scope: turn
    criteria: [{ id: calm, description: no selling }]
    pass_at: 1
    on_fail: warn
    on_error: allow
`;
const onTopic = (everyTurns: number) => `
  - id: on_topic
    description: The agent stays on the user's request.
    scope: conversation
    every_turns: ${everyTurns}
    criteria: [{ id: topic, description: on topic }]
    pass_at: 1
    on_fail: intervene
    on_error: allow
`;
const REVIEW = "[CONVERSATION REVIEW] A policy check did not pass: The agent stays on the user's request. it pushes a lottery Correct course in your next reply.";

/** Turn rubrics fail a dollar amount (no_refund_promise) or a lottery (tone); the conversation rubric fails a lottery. */
const verdicts = scriptedJudge(({ rubric, judged }: JudgeModelRequest) => {
  const response = judged.split('## The response')[1] ?? judged;
  const bad = rubric.id === 'no_refund_promise' ? /\$\d/.test(response) : response.includes('lottery');
  const why = rubric.id === 'no_refund_promise' ? 'it names an amount' : 'it pushes a lottery';
  return { criteria: [{ id: rubric.criteria[0]!.id, score: bad ? 0 : 1, reasoning: bad ? why : 'fine', evidence: [] }], confidence: 0.9 };
});

const State = Annotation.Root({ ...MessagesAnnotation.spec, ...PanoptesAnnotation.spec });
const ask = (text: string) => ({ messages: [new HumanMessage(text)] });
const thread = (id: string) => ({ configurable: { thread_id: id } });
/** Lets a background judgment (a scripted one answers at once) finish. */
const background = () => new Promise((resolve) => setTimeout(resolve, 20));

/** A one-node chat graph whose node is wrapped with a judge of `rubrics`. */
function judgedGraph(model: FakeBuiltModel, rubrics: string, options: Partial<WrapModelNodeOptions> & { judgeModel?: JudgeModel; timeoutMs?: number; withMonitor?: boolean } = {}) {
  const { judgeModel = verdicts, timeoutMs, withMonitor = true, ...nodeOptions } = options;
  const logger = recordingLogger();
  const judge = createJudge({ model: judgeModel, rubrics: parseRubrics(`rubrics:${rubrics}`), logger, ...(timeoutMs ? { timeoutMs } : {}) });
  const reports: JudgmentReport[] = [];
  const monitor = withMonitor ? createGraphMonitor({ workflow, logger }) : undefined;
  const callModel = async (state: typeof State.State) => ({ messages: [await model.invoke(state.messages)] });
  const graph = new StateGraph(State)
    .addNode('agent', wrapModelNode(callModel, { ...(monitor ? { monitor } : {}), judge, logger, systemPrompt: SYSTEM, onJudgment: (report) => void reports.push(report), ...nodeOptions }))
    .addEdge(START, 'agent')
    .addEdge('agent', END)
    .compile({ checkpointer: new MemorySaver() });
  return { graph, judge, reports };
}

describe('wrapModelNode({ judge }): turn rubrics before the node returns its answer', () => {
  it('replace: the answer never enters the thread; the next call reads why', async () => {
    const model = fakeModel().respond(new AIMessage(PROMISE)).respond(new AIMessage(HEDGE));
    const { graph, reports } = judgedGraph(model, NO_PROMISE);
    const first = await graph.invoke(ask('Refund?'), thread('t1'));
    const last = first.messages.at(-1)!;
    expect(describeMessage(last)).toBe(`ai:${DEFAULT_USER_MESSAGE}`);
    expect(last.response_metadata).toMatchObject({ panoptes: { judged: { rubrics: ['no_refund_promise'], decision: 'deny' } } });
    expect(first.messages.map(describeMessage).join('\n')).not.toContain('$120');
    expect(reports).toEqual([expect.objectContaining({ scope: 'turn', sessionId: 't1' })]);

    const second = await graph.invoke(ask('So?'), thread('t1'));
    expect(requestsOf(model)[1]![0]).toBe(`system:${SYSTEM}\n\n[POLICY CHECK] Your previous answer was withheld from the user. A policy check did not pass: The agent must not promise a refund amount. it names an amount`);
    expect(describeMessage(second.messages.at(-1)!)).toBe(`ai:${HEDGE}`);
  });

  it("regenerate: runs the node once more with the finding and returns the compliant answer; a second failure is replaced", async () => {
    const model = fakeModel().respond(new AIMessage(PROMISE)).respond(new AIMessage(HEDGE));
    const fixed = await judgedGraph(model, NO_PROMISE, { onViolatingText: 'regenerate' }).graph.invoke(ask('Refund?'), thread('t1'));
    expect(fixed.messages.map(describeMessage)).toEqual(['human:Refund?', `ai:${HEDGE}`]);
    expect(requestsOf(model)[1]![0]).toContain('[POLICY CHECK] Your answer was not shown to the user: it did not pass a policy check. A policy check did not pass: The agent must not promise a refund amount. it names an amount Answer again.');

    const stubborn = fakeModel().respond(new AIMessage(PROMISE)).respond(new AIMessage(PROMISE)).respond(new AIMessage('never asked'));
    const replaced = await judgedGraph(stubborn, NO_PROMISE, { onViolatingText: 'regenerate' }).graph.invoke(ask('Refund?'), thread('t2'));
    expect(stubborn.callCount).toBe(2);
    expect(replaced.messages.map(describeMessage)).toEqual(['human:Refund?', `ai:${DEFAULT_USER_MESSAGE}`]);
  });

  it('deliver: the answer goes out, and the next call is told to correct it', async () => {
    const model = fakeModel().respond(new AIMessage(PROMISE)).respond(new AIMessage(HEDGE));
    const { graph } = judgedGraph(model, NO_PROMISE, { onViolatingText: 'deliver' });
    expect(describeMessage((await graph.invoke(ask('Refund?'), thread('t1'))).messages.at(-1)!)).toBe(`ai:${PROMISE}`);
    await graph.invoke(ask('So?'), thread('t1'));
    expect(requestsOf(model)[1]![0]).toMatch(/\[POLICY CHECK\] Your previous answer was delivered but did not pass a policy check\. .* Correct it in your next reply\.$/);
  });

  it('an answer that calls tools, or has no text, is not judged by turn rubrics', async () => {
    const model = fakeModel().respond(callTool('send_email', { to: 'bob@example.com', body: '$120' }, 'm1'));
    const { graph, judge } = judgedGraph(model, NO_PROMISE);
    await graph.invoke(ask('Mail bob'), thread('t1'));
    expect(judge.stats().judgments).toBe(0);
  });

  it('without a monitor: the judge alone judges the answer under the thread session', async () => {
    const model = fakeModel().respond(new AIMessage(PROMISE)).respond(new AIMessage(HEDGE));
    const { graph, reports } = judgedGraph(model, NO_PROMISE, { withMonitor: false });
    expect(describeMessage((await graph.invoke(ask('Refund?'), thread('t1'))).messages.at(-1)!)).toBe(`ai:${DEFAULT_USER_MESSAGE}`);
    expect(reports[0]).toMatchObject({ scope: 'turn', sessionId: 't1' });
    await graph.invoke(ask('So?'), thread('t1'));
    expect(requestsOf(model)[1]![0]).toContain('[POLICY CHECK] Your previous answer was withheld from the user.');
  });

  it('regenerate whose second run fails: the first answer is withheld, the failure logged once', async () => {
    for (const withMonitor of [true, false]) {
      const model = fakeModel().respond(new AIMessage(PROMISE)).respond(new Error('provider down'));
      const logger = recordingLogger();
      const result = await judgedGraph(model, NO_PROMISE, { onViolatingText: 'regenerate', withMonitor, logger }).graph.invoke(ask('Refund?'), thread('t1'));
      expect(result.messages.map(describeMessage)).toEqual(['human:Refund?', `ai:${DEFAULT_USER_MESSAGE}`]);
      expect(logger.warnings).toEqual(['[panoptes] the model call regenerating a withheld answer failed; the agent goes on unchecked. Later failures here are not logged.']);
    }
  });

  it('rejects a judge option that is not a judge, at construction', () => {
    expect(() => wrapModelNode(async () => ({}), { judge: { rubrics: [] } as never })).toThrow(InvalidOptionError);
  });
});

describe('wrapModelNode({ judge }): conversation rubrics off the critical path', () => {
  it('judges every second answer of the thread; a failing review reaches the next call once', async () => {
    const model = fakeModel().respond(new AIMessage('Hello.')).respond(new AIMessage('Buy a lottery ticket!')).respond(new AIMessage('Back to your order.')).respond(new AIMessage('Ok.'));
    const { graph, judge, reports } = judgedGraph(model, onTopic(2));
    await graph.invoke(ask('Hi'), thread('c1'));
    await background();
    expect(judge.stats().judgments).toBe(0); // turn 1: not due
    await graph.invoke(ask('And?'), thread('c1'));
    await background();
    expect(reports).toEqual([expect.objectContaining({ scope: 'conversation', sessionId: 'c1' })]);
    await graph.invoke(ask('Hm?'), thread('c1'));
    expect(requestsOf(model)[2]![0]).toBe(`system:${SYSTEM}\n\n${REVIEW}`);
    await graph.invoke(ask('Ok?'), thread('c1'));
    expect(requestsOf(model)[3]![0]).toBe(`system:${SYSTEM}`); // taken once
  });

  it('a turn rubric that warns makes the conversation rubric due at once', async () => {
    const model = fakeModel().respond(new AIMessage('Buy a lottery ticket!')).respond(new AIMessage('Back to your order.'));
    const { graph, reports } = judgedGraph(model, `${TONE}${onTopic(10)}`);
    const first = await graph.invoke(ask('Hi'), thread('w1'));
    expect(describeMessage(first.messages.at(-1)!)).toBe('ai:Buy a lottery ticket!'); // warn delivers
    await background();
    expect(reports.map(({ scope }) => scope)).toEqual(['turn', 'conversation']);
    await graph.invoke(ask('And?'), thread('w1'));
    expect(requestsOf(model)[1]![0]).toBe(`system:${SYSTEM}\n\n${REVIEW}`);
  });

  it('a hanging judge never delays the answer: one judgment per thread at a time, its timeout counted', async () => {
    const model = fakeModel().respond(new AIMessage('Hello.')).respond(new AIMessage('Anything else?'));
    const { graph, judge } = judgedGraph(model, onTopic(1), { judgeModel: hangingModel, timeoutMs: 1000 });
    const started = performance.now();
    await graph.invoke(ask('Hi'), thread('h1'));
    await graph.invoke(ask('And?'), thread('h1'));
    expect(performance.now() - started).toBeLessThan(800);
    expect(judge.stats().judgments).toBe(1); // the second answer's judgment skipped: the first is in flight
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(judge.stats().errors.timeout).toBe(1);
  });
});
