import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createConversationSessions, createMonitor, InvalidOptionError, parseWorkflow, type AssistantTurn, type ChatMessage, type Monitor } from '../../src/index.js';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string, toolCalls: AssistantTurn['toolCalls'] = []): ChatMessage => ({ role: 'assistant', content, ...(toolCalls.length > 0 ? { toolCalls } : {}) });
const turnOf = (message: ChatMessage): AssistantTurn => ({ content: message.content, toolCalls: message.role === 'assistant' ? (message.toolCalls ?? []) : [] });

describe('createConversationSessions', () => {
  it('continues the session whose recorded answer a request carries, through tool results and new user messages', () => {
    const conversations = createConversationSessions();
    const first = conversations.sessionOf([{ role: 'system', content: 'Be brief.' }, user('Refund A1.')]);
    const call = assistant('Let me check.', [{ id: 'c1', name: 'verify_identity', args: { account: 42 } }]);
    conversations.answered(first, turnOf(call));
    expect(conversations.sessionOfToolCall('c1')).toBe(first);
    const history = [user('Refund A1.'), call, { role: 'tool' as const, content: 'verified', toolCallId: 'c1' }];
    // System messages are not part of the history: guidance appended to the prompt does not start a new session.
    expect(conversations.sessionOf([{ role: 'system', content: 'Be brief. [WORKFLOW GUIDANCE] Verify first.' }, ...history])).toBe(first);
    conversations.answered(first, { content: 'Done.', toolCalls: [] });
    expect(conversations.sessionOf([...history, assistant('Done.'), user('Thanks.')])).toBe(first);
  });

  it('matches an answer by its text and its calls (id, name, arguments in any key order), not by surrounding whitespace', () => {
    const conversations = createConversationSessions();
    const first = conversations.sessionOf([user('Hi')]);
    conversations.answered(first, { content: 'Hello! ', toolCalls: [{ id: 'a', name: 'lookup', args: { b: 1, a: 2 } }] });
    expect(conversations.sessionOf([user('Hi'), assistant('Hello!', [{ id: 'other', name: 'lookup', args: { a: 2, b: 1 } }]), user('x')])).not.toBe(first);
    expect(conversations.sessionOf([user('Hi'), assistant('Hello!', [{ id: 'a', name: 'lookup', args: { a: 2, b: 1 } }]), user('x')])).toBe(first);
  });

  // Regression (issue 13): two customers who opened with the same words shared one session, so the second
  // customer's refund ran on the first customer's identity check.
  it('gives two conversations with the same opening two sessions', () => {
    const conversations = createConversationSessions();
    const opening = [{ role: 'system' as const, content: 'You are a support agent.' }, user('I want a refund.')];
    expect(conversations.sessionOf(opening)).not.toBe(conversations.sessionOf(opening));
  });

  it('lets an answer be continued once: a second request continuing it gets a new session forked from the same state', () => {
    const conversations = createConversationSessions<string>();
    const first = conversations.sessionOf([user('Hi')]);
    conversations.keep(first, 'state after Hi');
    conversations.answered(first, { content: 'Hello.', toolCalls: [] });
    const history = [user('Hi'), assistant('Hello.')];
    expect(conversations.sessionOf([...history, user('I am customer A.')])).toBe(first);
    conversations.keep(first, 'state after A');
    const second = conversations.sessionOf([...history, user('I am customer B.')]);
    expect(second).not.toBe(first);
    expect(conversations.forkSource(second)).toBe('state after Hi');
    expect(conversations.forkSource(second)).toBe('state after Hi'); // until the fork keeps a state of its own
    conversations.keep(second, 'state after B');
    expect(conversations.forkSource(second)).toBeUndefined();
    expect(conversations.forkSource(first)).toBeUndefined();
  });

  it('places the answer a tool call came from when no model hook recorded it', () => {
    const conversations = createConversationSessions();
    const call = assistant('', [{ id: 'c1', name: 'set_context', args: {} }]);
    const session = conversations.sessionOfAnswer([user('Refund B1.'), call]);
    expect(conversations.sessionOfAnswer([user('Refund B1.'), call])).toBe(session);
    const next = assistant('', [{ id: 'c2', name: 'issue_refund', args: {} }]);
    expect(conversations.sessionOfAnswer([user('Refund B1.'), call, { role: 'tool', content: 'ok', toolCallId: 'c1' }, next])).toBe(session);
  });

  it('finds the session a finished thread ends with, without continuing it', () => {
    const conversations = createConversationSessions();
    const first = conversations.sessionOf([user('Hi')]);
    conversations.answered(first, { content: 'Bye.', toolCalls: [] });
    expect(conversations.sessionEndingWith([user('Hi'), assistant('Bye.')])).toBe(first);
    expect(conversations.sessionOf([user('Hi'), assistant('Bye.'), user('Wait.')])).toBe(first); // still continuable
    expect(conversations.sessionEndingWith([user('Other')])).toBeUndefined();
  });

  it('forgets the least recently used past its limit, so memory stays bounded', () => {
    const conversations = createConversationSessions({ limit: 2 });
    const ids = ['a', 'b', 'c'].map((text) => {
      const id = conversations.sessionOf([user(text)]);
      conversations.answered(id, { content: `re ${text}`, toolCalls: [] });
      return id;
    });
    expect(conversations.sessionEndingWith([user('a'), assistant('re a')])).toBeUndefined();
    expect(conversations.sessionEndingWith([user('c'), assistant('re c')])).toBe(ids[2]);
  });

  it('checks its options', () => {
    expect(() => createConversationSessions({ limit: 0 })).toThrow(InvalidOptionError);
  });
});

const workflow = parseWorkflow(`
name: support
states:
  - name: greeting
    initial: true
  - name: verify_identity
    classification: { tool_calls: [verify_identity] }
  - name: account_action
    classification: { tool_calls: [issue_refund] }
  - name: resolution
    classification: { patterns: ["anything else"] }
constraints:
  - { name: verify_first, type: precedence, trigger: account_action, target: verify_identity, severity: critical }
  - { name: must_resolve, type: eventually, target: resolution }
`);

/** What a scripted agent says on one turn: a tool call or a text. */
const ACTIONS = ['verify', 'refund', 'resolve', 'chat'] as const;
type Action = (typeof ACTIONS)[number];

/** One answer; `id` makes its tool-call id, unique per response as providers make them. */
function answerFor(action: Action, id: string): AssistantTurn {
  switch (action) {
    case 'verify':
      return { content: '', toolCalls: [{ id: `verify-${id}`, name: 'verify_identity', args: {} }] };
    case 'refund':
      return { content: '', toolCalls: [{ id: `refund-${id}`, name: 'issue_refund', args: {} }] };
    case 'resolve':
      return { content: 'Is there anything else?', toolCalls: [] };
    default:
      return { content: `Let me see (${id}).`, toolCalls: [] };
  }
}

/**
 * Runs one conversation through the monitor as an adapter would, placing each model call by its history; returns
 * the verdict-bearing report after every turn.
 */
async function runConversation(monitor: Monitor, actions: readonly Action[], who: string, shared: number) {
  const history: ChatMessage[] = [];
  const seen: string[] = [];
  let sessionId = '';
  for (let turn = 0; turn < actions.length; turn++) {
    history.push(user(turn < shared ? `shared ${turn}` : `${who} ${turn}`));
    sessionId = monitor.conversations.sessionOf(history);
    await monitor.beforeModel(sessionId, { messages: history });
    const answer = answerFor(actions[turn]!, turn < shared ? `shared-${turn}` : `${who}-${turn}`);
    await monitor.afterModel(sessionId, answer);
    monitor.conversations.answered(sessionId, answer);
    history.push({ role: 'assistant', content: answer.content, toolCalls: answer.toolCalls });
    for (const call of answer.toolCalls) {
      const decision = await monitor.beforeTool(sessionId, call);
      history.push({ role: 'tool', content: decision.action === 'allow' ? 'done' : decision.reason, toolCallId: call.id! });
    }
    const report = (await monitor.report(sessionId))!;
    seen.push(JSON.stringify({ trace: report.trace, verdicts: report.verdicts, refusals: report.refusals.map((refusal) => refusal.state) }));
  }
  return seen;
}

describe('conversation sessions through a monitor (property)', () => {
  // Two customers chatting at once: their turns alternate, each turn a whole request, answer and tool checks. The
  // shared prefix is word for word the same history (tool-call ids included); after it they differ.
  it('two conversations with a shared prefix never change each other once they differ: each sees what it would alone', async () => {
    const action = fc.constantFrom(...ACTIONS);
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 0, maxLength: 4 }), fc.array(action, { minLength: 1, maxLength: 4 }), fc.array(action, { minLength: 1, maxLength: 4 }), fc.boolean(), async (shared, restA, restB, concurrent) => {
        const a = [...shared, ...restA];
        const b = [...shared, ...restB];
        const expectedA = await runConversation(createMonitor({ workflow }), a, 'A', shared.length);
        const expectedB = await runConversation(createMonitor({ workflow }), b, 'B', shared.length);

        const monitor = createMonitor({ workflow });
        const [seenA, seenB] = concurrent
          ? await Promise.all([runConversation(monitor, a, 'A', shared.length), runConversation(monitor, b, 'B', shared.length)])
          : [await runConversation(monitor, a, 'A', shared.length), await runConversation(monitor, b, 'B', shared.length)];
        expect(seenA).toEqual(expectedA);
        expect(seenB).toEqual(expectedB);
      }),
      { numRuns: 150 },
    );
  });
});
