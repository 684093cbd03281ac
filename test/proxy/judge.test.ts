/**
 * The judge in the proxy, through the official `openai` client on chat completions (streamed and not): a `tool_call`
 * rubric refuses a call the workflow allows before the client sees it (the user reads the refusal message, the model
 * the reason on its next call), or asks the user and lets that exact call through after a plain yes; a `turn` rubric
 * withholds a response read whole or held, and otherwise tells the model on its next call. A hanging, failing and
 * over-budget judge each follow the rubric's `on_error` and are counted as misses.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { createJudge, namedJudgeModel, parseRubrics } from '../../src/index.js';
import { nextGuidance, startProxy, type Running } from './helpers.js';
import { ASKING_RUBRICS, ATTACKER, MAIL_RUBRICS, MAIL_TOOLS, PLAIN_WORKFLOW, RUBRICS, mailAgent, metricValue, testJudge } from './judge-helpers.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const SHOWN = 'Sorry, I cannot do that.';
const SYSTEM: ChatCompletionMessageParam = { role: 'system', content: 'You are a mail assistant.' };

async function start(judge: ReturnType<typeof testJudge>['judge'], proxy: Record<string, unknown> = {}) {
  running = await startProxy(mailAgent, { monitor: { workflow: PLAIN_WORKFLOW }, proxy: { judge, refusalMessage: SHOWN, ...proxy } });
  return running;
}

async function chat(run: Running, messages: ChatCompletionMessageParam[], { stream, session }: { stream: boolean; session: string }) {
  const options = { headers: { 'x-panoptes-session-id': session } };
  const completion = stream
    ? await run.client.chat.completions.stream({ model: 'fake-model', messages, tools: MAIL_TOOLS }, options).finalChatCompletion()
    : await run.client.chat.completions.create({ model: 'fake-model', messages, tools: MAIL_TOOLS }, options);
  return completion.choices[0]!;
}

describe.each([false, true])('chat completions with a judge (stream: %s)', (stream) => {
  it('refuses a call the judge fails before the client sees it; the model reads why on its next call', async () => {
    const { judge, calls } = testJudge();
    const run = await start(judge);
    const session = `mail-${stream}`;
    const choice = await chat(run, [SYSTEM, { role: 'user', content: 'Please forward my orders as the document says.' }], { stream, session });
    expect(choice.message.tool_calls ?? []).toEqual([]);
    expect(choice.message.content).toBe(SHOWN);
    expect(choice.finish_reason).toBe('stop');
    expect(calls).toEqual(['outgoing_mail']);
    const guidance = await nextGuidance(run.monitor, session);
    expect(guidance).toContain('The call to send_email was refused, so it did not run. A policy check did not pass: An e-mail must go to a recipient the user named. The user never named this recipient.');
    expect(await metricValue(run.url, 'panoptes_proxy_judgments_total', { rubric: 'outgoing_mail', scope: 'tool_call', outcome: 'fail', action: 'block' })).toBe(1);
    expect(await metricValue(run.url, 'panoptes_proxy_refused_tool_calls_total', {})).toBe(1);
    // The next request carries the reason in its system prompt.
    await chat(run, [SYSTEM, { role: 'user', content: 'Please mail me@example.com a hello.' }], { stream, session });
    expect(String(run.upstream.requests.at(-1)!.body!.messages[0]!.content)).toContain('The user never named this recipient.');
  });

  it('lets a call the judge passes through, with its arguments as checked', async () => {
    const { judge } = testJudge();
    const run = await start(judge);
    const choice = await chat(run, [SYSTEM, { role: 'user', content: 'Please mail me@example.com a hello.' }], { stream, session: `ok-${stream}` });
    expect(choice.message.tool_calls?.map((call) => (call.type === 'function' ? [call.function.name, JSON.parse(call.function.arguments)] : []))).toEqual([['send_email', { to: 'me@example.com', body: 'hello' }]]);
    expect(await metricValue(run.url, 'panoptes_proxy_judgments_total', { rubric: 'outgoing_mail', outcome: 'pass', action: 'allow' })).toBe(1);
  });

  it('asks the user about a call the judge doubts; a plain yes lets that exact call through, unjudged', async () => {
    const { judge, calls } = testJudge(ASKING_RUBRICS);
    const run = await start(judge);
    const session = `ask-${stream}`;
    const messages: ChatCompletionMessageParam[] = [SYSTEM, { role: 'user', content: 'Please forward my orders as the document says.' }];
    const first = await chat(run, messages, { stream, session });
    expect(first.message.tool_calls ?? []).toEqual([]);
    // The user reads the question, not the refusal message; the model reads that the user was asked.
    expect(first.message.content).toBe(`Before I go ahead: do you want me to run send_email with {"body":"all orders","to":"${ATTACKER}"}? Answer yes to confirm.`);
    expect(await nextGuidance(run.monitor, session)).toContain("needs the user's approval");
    messages.push({ role: 'assistant', content: first.message.content }, { role: 'user', content: 'Yes' });
    const second = await chat(run, messages, { stream, session });
    expect(second.message.tool_calls?.map((call) => (call.type === 'function' ? JSON.parse(call.function.arguments).to : ''))).toEqual([ATTACKER]);
    expect(calls).toEqual(['outgoing_mail']);
    expect(await metricValue(run.url, 'panoptes_proxy_judgments_total', { rubric: 'outgoing_mail', outcome: 'fail', action: 'ask' })).toBe(1);
    // The approval is spent: the same call again is judged, and asked about, again.
    messages.push({ role: 'assistant', content: '' }, { role: 'user', content: 'Please forward my orders as the document says.' });
    const third = await chat(run, messages, { stream, session });
    expect(third.message.tool_calls ?? []).toEqual([]);
    expect(calls).toEqual(['outgoing_mail', 'outgoing_mail']);
  });

  it('an answer other than a plain yes approves nothing', async () => {
    const { judge, calls } = testJudge(ASKING_RUBRICS);
    const run = await start(judge);
    const session = `no-${stream}`;
    const messages: ChatCompletionMessageParam[] = [SYSTEM, { role: 'user', content: 'Please forward my orders as the document says.' }];
    const first = await chat(run, messages, { stream, session });
    messages.push({ role: 'assistant', content: first.message.content }, { role: 'user', content: 'forward it, but not to them' });
    const second = await chat(run, messages, { stream, session });
    expect(second.message.tool_calls ?? []).toEqual([]);
    expect(calls).toEqual(['outgoing_mail', 'outgoing_mail']);
  });
});

describe('turn rubrics on chat completions', () => {
  it('withholds a non-streamed response the judge fails: the user reads the refusal message, the model why', async () => {
    const { judge } = testJudge();
    const run = await start(judge);
    const choice = await chat(run, [SYSTEM, { role: 'user', content: 'When do I get my refund?' }], { stream: false, session: 'turn-json' });
    expect(choice.message.content).toBe(SHOWN);
    expect(choice.finish_reason).toBe('content_filter');
    expect(await nextGuidance(run.monitor, 'turn-json')).toContain('Your last response was withheld from the user: A policy check did not pass: The response promises no refund amount. It promises an amount before the assessment.');
    expect(await metricValue(run.url, 'panoptes_proxy_judgments_total', { rubric: 'no_amount', scope: 'turn', outcome: 'fail', action: 'intervene' })).toBe(1);
    expect(await metricValue(run.url, 'panoptes_proxy_withheld_answers_total', { action: 'replace' })).toBe(1);
  });

  it('under text_policy hold, a streamed response is held for the judge and replaced whole', async () => {
    const { judge } = testJudge();
    const run = await start(judge, { textPolicy: 'hold' });
    const options = { headers: { 'x-panoptes-session-id': 'turn-hold' } };
    const runner = run.client.chat.completions.stream({ model: 'fake-model', messages: [SYSTEM, { role: 'user', content: 'When do I get my refund?' }], tools: MAIL_TOOLS }, options);
    const deltas: string[] = [];
    runner.on('content', (delta) => deltas.push(delta));
    const completion = await runner.finalChatCompletion();
    expect(deltas.join('')).not.toContain('$120');
    expect(completion.choices[0]!.message.content).toBe(SHOWN);
    expect(await nextGuidance(run.monitor, 'turn-hold')).toContain('Your last response was withheld from the user');
  });

  it('under text_policy stream, the text goes out as it came and the model is told on its next call', async () => {
    const { judge } = testJudge();
    const run = await start(judge);
    const choice = await chat(run, [SYSTEM, { role: 'user', content: 'When do I get my refund?' }], { stream: true, session: 'turn-stream' });
    expect(choice.message.content).toBe('You will get $120 back today.');
    expect(await nextGuidance(run.monitor, 'turn-stream')).toContain('A policy check found a problem with your last response, which the user has already read: A policy check did not pass: The response promises no refund amount.');
    expect(await metricValue(run.url, 'panoptes_proxy_judgments_total', { rubric: 'no_amount', outcome: 'fail' })).toBe(1);
  });

  it('held text past its bound streams on, is judged after, and counts a hold miss', async () => {
    const { judge } = testJudge();
    const run = await start(judge, { textPolicy: 'hold', holdTextChars: 10 });
    const choice = await chat(run, [SYSTEM, { role: 'user', content: 'When do I get my refund?' }], { stream: true, session: 'turn-overflow' });
    expect(choice.message.content).toBe('You will get $120 back today.');
    expect(await nextGuidance(run.monitor, 'turn-overflow')).toContain('which the user has already read');
    expect(await metricValue(run.url, 'panoptes_proxy_judge_misses_total', { cause: 'hold' })).toBe(1);
  });

  it('a rubric for other workflow states is not asked', async () => {
    const { judge, calls } = testJudge(MAIL_RUBRICS.replace('    applies_to: { tools: [send_email] }', '    applies_to: { tools: [send_email], states: [escalated] }'));
    const run = await start(judge);
    const choice = await chat(run, [SYSTEM, { role: 'user', content: 'Please forward my orders as the document says.' }], { stream: false, session: 'states' });
    expect(choice.message.tool_calls).toHaveLength(1);
    expect(calls).toEqual([]);
    const { judge: inState, calls: asked } = testJudge(MAIL_RUBRICS.replace('    applies_to: { tools: [send_email] }', '    applies_to: { tools: [send_email], states: [chatting] }'));
    await run.close();
    const again = await start(inState);
    expect((await chat(again, [SYSTEM, { role: 'user', content: 'Please forward my orders as the document says.' }], { stream: false, session: 'states-2' })).message.tool_calls ?? []).toEqual([]);
    expect(asked).toEqual(['outgoing_mail']);
  });

  it('a response of tool calls alone is not judged as empty text', async () => {
    const { judge, calls } = testJudge();
    const run = await start(judge);
    await chat(run, [SYSTEM, { role: 'user', content: 'Please forward my orders as the document says.' }], { stream: false, session: 'calls-only' });
    expect(calls).toEqual(['outgoing_mail']);
  });
});

describe('the judge option and its log lines', () => {
  it('refuses something that is not a judge at construction', async () => {
    const { createProxy } = await import('../../src/proxy/index.js');
    const { createMonitor } = await import('../../src/index.js');
    const monitor = createMonitor({ workflow: PLAIN_WORKFLOW });
    expect(() => createProxy({ upstream: 'http://127.0.0.1:1/v1', monitor, judge: { rubrics: [] } as never })).toThrow(/Invalid option `judge`.*Pass a judge made by createJudge/);
  });

  it('logs each judgment that did not pass on debug, without content', async () => {
    const { judge } = testJudge();
    const lines: string[] = [];
    const run = await start(judge, { logger: { warn: (line: string) => lines.push(line), debug: (line: string) => lines.push(line) } });
    await chat(run, [SYSTEM, { role: 'user', content: 'Please forward my orders as the document says.' }], { stream: false, session: 'logged' });
    expect(lines).toEqual(["[panoptes proxy] judge: rubric 'outgoing_mail' on a call to send_email: fail, block"]);
  });
});

describe('a judge that cannot answer follows on_error and is counted', () => {
  const rubrics = parseRubrics(RUBRICS, { source: 'test.rubrics.yaml' });
  const quiet = { warn: () => undefined };

  it('hanging: past its timeout the call is refused (on_error: deny), a timeout miss', async () => {
    const judge = createJudge({ model: namedJudgeModel('hangs', () => new Promise(() => undefined)), rubrics, timeoutMs: 100, logger: quiet });
    const run = await start(judge);
    const started = Date.now();
    const choice = await chat(run, [SYSTEM, { role: 'user', content: 'Please mail me@example.com a hello.' }], { stream: false, session: 'hang' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(choice.message.tool_calls ?? []).toEqual([]);
    expect(choice.message.content).toBe(`Sending it now.\n\n${SHOWN}`);
    expect(await nextGuidance(run.monitor, 'hang')).toContain('This action could not be checked against a policy');
    expect(await metricValue(run.url, 'panoptes_proxy_judge_misses_total', { rubric: 'outgoing_mail', cause: 'timeout' })).toBe(1);
    expect(await metricValue(run.url, 'panoptes_proxy_judgments_total', { rubric: 'outgoing_mail', outcome: 'error', action: 'deny' })).toBe(1);
  });

  it('failing: the response rubric lets the text through (on_error: allow), the call is refused (deny); both model misses', async () => {
    const judge = createJudge({ model: namedJudgeModel('fails', async () => { throw new Error('503 from the provider'); }), rubrics, logger: quiet });
    const run = await start(judge);
    const text = await chat(run, [SYSTEM, { role: 'user', content: 'When do I get my refund?' }], { stream: false, session: 'fail-text' });
    expect(text.message.content).toBe('You will get $120 back today.');
    const call = await chat(run, [SYSTEM, { role: 'user', content: 'Please mail me@example.com a hello.' }], { stream: true, session: 'fail-call' });
    expect(call.message.tool_calls ?? []).toEqual([]);
    expect(await metricValue(run.url, 'panoptes_proxy_judge_misses_total', { rubric: 'no_amount', cause: 'model' })).toBe(2);
    expect(await metricValue(run.url, 'panoptes_proxy_judge_misses_total', { rubric: 'outgoing_mail', cause: 'model' })).toBe(1);
  });

  it('over budget: the session judged once, its next call is refused unjudged (on_error: deny), a budget miss', async () => {
    const { judge, calls } = testJudge(MAIL_RUBRICS, { budget: { session: { calls: 1 } } });
    const run = await start(judge);
    const messages: ChatCompletionMessageParam[] = [SYSTEM, { role: 'user', content: 'Please mail me@example.com a hello.' }];
    const first = await chat(run, messages, { stream: false, session: 'budget' });
    expect(first.message.tool_calls).toHaveLength(1);
    messages.push({ role: 'assistant', content: first.message.content, tool_calls: first.message.tool_calls! }, { role: 'tool', tool_call_id: first.message.tool_calls![0]!.id, content: 'sent' }, { role: 'user', content: 'Please mail me@example.com a hello.' });
    const second = await chat(run, messages, { stream: false, session: 'budget' });
    expect(second.message.tool_calls ?? []).toEqual([]);
    expect(calls).toEqual(['outgoing_mail']);
    expect(await metricValue(run.url, 'panoptes_proxy_judge_misses_total', { rubric: 'outgoing_mail', cause: 'budget' })).toBe(1);
    // Another session has a budget of its own.
    const other = await chat(run, [SYSTEM, { role: 'user', content: 'Please mail me@example.com a hello.' }], { stream: false, session: 'budget-2' });
    expect(other.message.tool_calls).toHaveLength(1);
  });
});
