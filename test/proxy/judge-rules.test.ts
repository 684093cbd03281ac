/**
 * The rulebase's `judged(name)` in the proxy, answered by the judge's rubric `name` (official `openai` client): the
 * rule decides what it can, the judge settles the open question on the call and the user's requests, and a rubric
 * that names its rules is asked only through them (never also as a tool_call rubric of its own).
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { createJudge, namedJudgeModel, parseRubrics, parseRulebase, scriptedJudge, type JudgeModelRequest } from '../../src/index.js';
import { createProxyRules } from '../../src/proxy/index.js';
import { nextGuidance, startProxy, type Running } from './helpers.js';
import { ATTACKER, MAIL_TOOLS, PLAIN_WORKFLOW, mailAgent, metricValue } from './judge-helpers.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** Mail goes out when the judge finds the user asked for this recipient. */
const RULES = 'guard send_email(to: T) :- judged(user_named_recipient) "you did not ask to write to {T}".\n';
const RUBRICS = [
  'rubrics:',
  '  - id: user_named_recipient',
  '    description: The user named the recipient of this e-mail.',
  '    scope: tool_call',
  '    applies_to: { rules: [user_named_recipient] }',
  '    criteria:',
  '      - { id: named, description: The user named this recipient., scale: binary }',
  '    pass_at: 1',
  '    on_fail: block',
  '    on_error: ask',
].join('\n');

/** Fails a call whose recipient the user's requests never name. */
const answer = ({ judged }: JudgeModelRequest) => {
  const [requests = '', call = ''] = judged.split('## The call about to run');
  const to = /"to":"([^"]+)"/.exec(call)?.[1] ?? '';
  return { criteria: [{ id: 'named', score: requests.includes(to) ? 1 : 0, reasoning: '', evidence: [] }], confidence: 0.9 };
};

async function start(model = scriptedJudge(answer)) {
  const asked: string[] = [];
  const judge = createJudge({ model: namedJudgeModel('judge', async (request) => (asked.push(request.rubric.id), model(request))), rubrics: parseRubrics(RUBRICS), logger: { warn: () => undefined } });
  const rules = createProxyRules({ rulebase: parseRulebase(RULES), judge });
  running = await startProxy(mailAgent, { monitor: { workflow: PLAIN_WORKFLOW }, proxy: { rules, judge, refusalMessage: 'Sorry, I cannot do that.' } });
  return { run: running, asked };
}

const chat = async (run: Running, content: string, session: string) =>
  (await run.client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content }] as ChatCompletionMessageParam[], tools: MAIL_TOOLS }, { headers: { 'x-panoptes-session-id': session } })).choices[0]!.message;

describe('judged(...) in the proxy rules', () => {
  it('the judge settles the rule: a recipient the user named passes, another is refused with the rule reason', async () => {
    const { run, asked } = await start();
    const allowed = await chat(run, 'Please mail me@example.com a hello.', 'named');
    expect(allowed.tool_calls).toHaveLength(1);
    const refused = await chat(run, 'Please forward my orders as the document says.', 'unnamed');
    expect(refused.tool_calls ?? []).toEqual([]);
    expect(refused.content).toBe('Sorry, I cannot do that.');
    expect(await nextGuidance(run.monitor, 'unnamed')).toContain(`you did not ask to write to ${ATTACKER}`);
    // Asked once per call, through the rule only: the rubric names its rule, so the proxy does not judge it again itself.
    expect(asked).toEqual(['user_named_recipient', 'user_named_recipient']);
    expect(await metricValue(run.url, 'panoptes_proxy_judgments_total', { rubric: 'user_named_recipient' })).toBe(0);
  });

  it('a judge that fails answers by on_error: ask holds the call with a question for the user', async () => {
    const { run } = await start(namedJudgeModel('down', async () => { throw new Error('down'); }));
    const held = await chat(run, 'Please mail me@example.com a hello.', 'down');
    expect(held.tool_calls ?? []).toEqual([]);
    expect(held.content).toBe('Sending it now.\n\nDo you want exactly this: send_email(to: "me@example.com", body: "hello")? (user named recipient)');
    expect(await nextGuidance(run.monitor, 'down')).toContain('if they answer with a plain yes, make the same call again');
  });
});
