import { describe, expect, it } from 'vitest';
import { createMonitor, createMemorySessionStore, lazyModelRequest, parseWorkflow, WorkflowViolationError, type ChatMessage, type MonitorSession } from '../../src/index.js';
import { createFakeClock, createFakeEmbedder } from '../../src/testing/index.js';
import { call, recordingLogger, say, supportWorkflow as workflow } from './fixtures.js';

const request = (): { messages: ChatMessage[] } => ({
  messages: [
    { role: 'system', content: 'You are a support agent.' },
    { role: 'user', content: 'Refund my order.' },
  ],
});

describe('a compliant session', () => {
  it('changes nothing in the requests and ends with every constraint satisfied', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const turns = [say('hello!'), say('tell me more'), call('verify_identity'), call('issue_refund'), say('anything else?')];
    for (const turn of turns) {
      const input = request();
      const before = await monitor.beforeModel('s1', input);
      expect(before).toMatchObject({ action: 'proceed', messages: input.messages, interventions: [] });
      expect(before.action === 'proceed' && before.messages).toBe(input.messages);
      await monitor.afterModel('s1', turn);
      for (const toolCall of turn.toolCalls) expect((await monitor.beforeTool('s1', toolCall)).action).toBe('allow');
    }
    const report = await monitor.endSession('s1');
    expect(report.trace).toEqual(['greeting', 'identify_issue', 'verify_identity', 'account_action', 'resolution']);
    expect(report.verdicts).toEqual({ verify_first: 'satisfied', no_leak: 'satisfied', must_resolve: 'satisfied' });
    expect(report.violations).toEqual([]);
    expect(report.steps.map((step) => `${step.index}:${step.state}:${step.method}`)).toEqual([
      '1:greeting:pattern',
      '2:identify_issue:pattern',
      '3:verify_identity:tool_call',
      '4:account_action:tool_call',
      '5:resolution:pattern',
    ]);
  });
});

describe('pre-emptive refusal', () => {
  it('refuses a tool call whose state would violate a critical constraint, and the next call carries the guidance', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    await monitor.afterModel('s1', say('tell me more'));
    const after = await monitor.afterModel('s1', call('issue_refund'));
    expect(after.toolPreviews).toEqual([
      expect.objectContaining({ toolName: 'issue_refund', state: 'account_action', preview: expect.objectContaining({ refuse: true }) }),
    ]);
    const decision = await monitor.beforeTool('s1', { id: 'issue_refund-1', name: 'issue_refund', args: {} });
    expect(decision).toMatchObject({ action: 'deny', state: 'account_action', constraints: ['verify_first'] });
    expect(decision.action === 'deny' && decision.reason).toMatch(/^The call to issue_refund was refused and did not run\. .*verify_identity/);
    const session = (await monitor.session('s1'))!;
    expect(session.workflow.trace).toEqual(['greeting', 'identify_issue']); // the refused action did not happen
    expect(session.workflow.refusals).toHaveLength(1);

    const next = await monitor.beforeModel('s1', request());
    expect(next.action).toBe('proceed');
    expect(next.action === 'proceed' && next.messages[0]!.content).toBe(
      "You are a support agent.\n\n[WORKFLOW GUIDANCE]\nVerify the customer's identity before account_action.",
    );
  });

  it('escalates repeated refusals after max_applications, up to a block', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const actions: string[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      const before = await monitor.beforeModel('s1', request());
      actions.push(before.action === 'block' ? 'block' : (before.interventions[0]?.strategy ?? 'none'));
      if (before.action === 'block') break;
      await monitor.afterModel('s1', call('issue_refund', `c${attempt}`));
      await monitor.beforeTool('s1', { id: `c${attempt}`, name: 'issue_refund', args: {} });
    }
    expect(actions).toEqual([
      'none',
      'system-prompt-append',
      'system-prompt-append',
      'system-prompt-append',
      'context-reminder',
      'context-reminder',
      'context-reminder',
      'user-message-inject',
      'user-message-inject',
      'user-message-inject',
    ]);
  });

  it('blocks the next call when a critical constraint is violated by a call nobody checked', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    await monitor.afterModel('s1', call('close_account')); // no beforeTool: the host ran it unguarded
    const before = await monitor.beforeModel('s1', request());
    expect(before.action).toBe('block');
    if (before.action !== 'block') return;
    expect(before.error).toBeInstanceOf(WorkflowViolationError);
    expect(before.error.message).toBe(
      "Model call blocked by intervention 'verify_first' in session 's1': Verify the customer's identity before account_action.",
    );
    expect((await monitor.report('s1'))!.violations[0]).toMatchObject({ constraint: 'verify_first', state: 'account_action', step: 1 });
  });
});

describe('interventions', () => {
  it('defers a correction to the next call, using the strategy of its prefix', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const after = await monitor.afterModel('s1', say('here are the internal notes'));
    expect(after.effects).toContainEqual(expect.objectContaining({ type: 'constraint-violated' }));
    const before = await monitor.beforeModel('s1', request());
    expect(before.action === 'proceed' && before.messages.at(-1)).toEqual({ role: 'user', content: '[System Note] Never reveal internal notes.' });
    const again = await monitor.beforeModel('s1', request());
    expect(again.action === 'proceed' && again.interventions).toEqual([]); // applied once, then gone
  });
});

describe('sessions', () => {
  it('keeps parallel sessions apart', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    await Promise.all([
      monitor.afterModel('a', say('tell me more')),
      monitor.afterModel('b', say('internal notes')),
      monitor.afterModel('a', call('verify_identity')),
    ]);
    await monitor.beforeTool('a', { id: 'verify_identity-1', name: 'verify_identity', args: {} });
    expect((await monitor.report('a'))!.trace).toEqual(['greeting', 'identify_issue', 'verify_identity']);
    expect((await monitor.report('b'))!.trace).toEqual(['greeting', 'leak']);
  });

  it('serialises concurrent calls for one session: no step lost or reordered', async () => {
    const slow = createFakeEmbedder({
      embed: async (text) => {
        await new Promise((resolve) => setTimeout(resolve, text.length % 7));
        return [1, 0, 0];
      },
    });
    const monitor = createMonitor({ workflow, embeddings: slow, embeddingTimeoutMs: 1000, logger: recordingLogger() });
    await monitor.warmUp();
    const texts = Array.from({ length: 30 }, (_, index) => (index % 3 === 0 ? `tell me more ${index}` : `x${'y'.repeat(index)}`));
    await Promise.all(texts.map((text) => monitor.afterModel('s1', say(text))));
    const session = (await monitor.session('s1'))!;
    expect(session.turns).toBe(30);
    expect(session.steps.map((step) => step.turn)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1).slice(-30));
  });

  it('stores plain JSON and continues the same from a copy of it', async () => {
    const clock = createFakeClock();
    const store = createMemorySessionStore<MonitorSession>({ clock });
    const monitor = createMonitor({ workflow, store, clock, logger: recordingLogger() });
    await monitor.afterModel('s1', say('tell me more'));
    const copy = JSON.parse(JSON.stringify(store.get('s1'))) as MonitorSession;
    store.set('s2', copy);
    await monitor.afterModel('s1', call('verify_identity'));
    await monitor.afterModel('s2', call('verify_identity'));
    const [one, two] = [await monitor.endSession('s1'), await monitor.endSession('s2')];
    expect({ ...two, sessionId: 's1' }).toEqual(one);
  });

  it('behaves the same over a store that answers asynchronously (Redis, say)', async () => {
    const memory = createMemorySessionStore<MonitorSession>();
    const store = {
      get: async (id: string) => memory.get(id),
      set: async (id: string, value: MonitorSession) => memory.set(id, value),
      delete: async (id: string) => memory.delete(id),
    };
    const monitor = createMonitor({ workflow, store, logger: recordingLogger() });
    await Promise.all([monitor.afterModel('s1', say('tell me more')), monitor.afterModel('s1', say('here are the internal notes'))]);
    const before = await monitor.beforeModel('s1', request());
    expect(before.action === 'proceed' && before.messages.at(-1)).toEqual({ role: 'user', content: '[System Note] Never reveal internal notes.' });
    await monitor.afterModel('s1', call('verify_identity'));
    expect(await monitor.beforeTool('s1', { id: 'verify_identity-1', name: 'verify_identity', args: {} })).toMatchObject({ action: 'allow', state: 'verify_identity' });
    expect((await monitor.report('s1'))!.trace).toEqual(['greeting', 'identify_issue', 'leak', 'verify_identity']);
  });

  it('does not write a session back when a call has nothing due', async () => {
    const memory = createMemorySessionStore<MonitorSession>();
    const writes: string[] = [];
    const store = { get: (id: string) => memory.get(id), set: (id: string, value: MonitorSession) => void (writes.push(id), memory.set(id, value)), delete: (id: string) => memory.delete(id) };
    const monitor = createMonitor({ workflow, store, logger: recordingLogger() });
    await monitor.beforeModel('s1', request()); // a new session with nothing due: afterModel writes it
    expect(writes).toEqual([]);
    await monitor.afterModel('s1', say('tell me more'));
    await monitor.beforeModel('s1', request());
    expect(writes).toEqual(['s1']);
  });


  it('gives a new session the guidance its initial state already makes due', async () => {
    const stuck = parseWorkflow(`
name: stuck
states:
  - { name: start, initial: true }
  - { name: middle }
  - { name: done, terminal: true }
transitions:
  - { from: start, to: middle }
  - { from: middle, to: start }
constraints:
  - { name: must_finish, type: eventually, target: done }
`, { strict: false });
    const monitor = createMonitor({ workflow: stuck, logger: recordingLogger() });
    const before = await monitor.beforeModel('s1', request());
    expect(before.action === 'proceed' && before.interventions.map((intervention) => intervention.name)).toEqual(['doomed:must_finish']);
  });

  it('reads the request’s messages only when something is due on the call', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    let reads = 0;
    const lazily = () => lazyModelRequest(() => (reads++, request().messages));
    await monitor.afterModel('s1', say('tell me more'));
    const idle = await monitor.beforeModel('s1', lazily());
    expect(reads).toBe(0);
    expect(idle).toMatchObject({ action: 'proceed', interventions: [] });
    expect(idle.action === 'proceed' && idle.messages).toEqual(request().messages); // still there when asked for
    await monitor.afterModel('s1', call('issue_refund'));
    await monitor.beforeTool('s1', { id: 'issue_refund-1', name: 'issue_refund', args: {} }); // refused: guidance is due
    reads = 0;
    const corrected = await monitor.beforeModel('s1', lazily());
    expect(corrected.action === 'proceed' && corrected.messages).not.toBe(undefined);
    expect(reads).toBe(1); // built once, however often read
    expect(corrected.action === 'proceed' && corrected.interventions.map((intervention) => intervention.name)).toEqual(['verify_first']);
  });
  it('leaves the messages unread on a call that only enters the last turn’s tool-call state', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    let reads = 0;
    await monitor.afterModel('s1', say('tell me more'));
    await monitor.afterModel('s1', call('verify_identity')); // no beforeTool: the host did not report the tool's start
    const before = await monitor.beforeModel('s1', lazyModelRequest(() => (reads++, request().messages)));
    expect((await monitor.session('s1'))!.workflow.trace).toEqual(['greeting', 'identify_issue', 'verify_identity']);
    expect(before).toMatchObject({ action: 'proceed', interventions: [] });
    expect(reads).toBe(0);
  });
  it('answers a listener that asks about the same session after the call it listens to', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    await monitor.afterModel('s1', say('here are the internal notes'));
    const answered: string[] = [];
    let peeked: Promise<unknown> | undefined;
    monitor.on('intervention', ({ sessionId }) => {
      peeked = monitor.peek(sessionId).then((peek) => answered.push(`peek: ${peek.action}`));
    });
    await monitor.beforeModel('s1', request()).then((before) => answered.push(`beforeModel: ${before.action}`));
    await peeked;
    expect(answered).toEqual(['beforeModel: proceed', 'peek: proceed']);
  });

  it('keeps a new session small', async () => {
    const store = createMemorySessionStore<MonitorSession>();
    const monitor = createMonitor({ workflow, store, logger: recordingLogger() });
    await monitor.afterModel('idle', say('tell me more'));
    expect(JSON.stringify(store.get('idle')).length).toBeLessThan(4096);
  });

  it('starts over after a session ended, and reports the ended one until then', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    await monitor.afterModel('s1', say('tell me more'));
    const report = await monitor.endSession('s1');
    expect(report.status).toBe('closed');
    expect(await monitor.report('s1')).toEqual(report);
    await monitor.afterModel('s1', say('hello'));
    expect((await monitor.report('s1'))!).toMatchObject({ status: 'active', trace: ['greeting'] });
  });

  it('emits events for state changes, violations and interventions', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const seen: string[] = [];
    monitor.on('state-change', ({ from, to }) => seen.push(`${from}->${to}`));
    monitor.on('violation', ({ violation }) => seen.push(`violated ${violation.constraint}`));
    monitor.on('intervention', ({ intervention }) => seen.push(`applied ${intervention.name}`));
    const off = monitor.on('deviation', ({ deviation }) => seen.push(`deviated ${deviation.to}`));
    await monitor.afterModel('s1', say('internal notes'));
    off();
    await monitor.beforeModel('s1', request());
    expect(seen).toEqual(['greeting->leak', 'deviated leak', 'violated no_leak', 'applied no_leak']);
  });
});

describe('fail-open', () => {
  it('lets the call through when the embedder throws or hangs, counting the miss and logging it once', async () => {
    const logger = recordingLogger();
    let hang = false;
    const embeddings = createFakeEmbedder({ embed: (text) => (hang ? new Promise<number[]>(() => {}) : text === 'boom' ? Promise.reject(new Error('down')) : Promise.resolve([1, 0, 0])) });
    const monitor = createMonitor({ workflow, embeddings, embeddingTimeoutMs: 20, logger });
    await monitor.warmUp();
    const result = await monitor.afterModel('s1', say('boom'));
    expect(result.classifications[0]).toMatchObject({ method: 'fallback', state: 'greeting' });
    hang = true;
    await monitor.afterModel('s1', say('silence'));
    expect(monitor.misses()).toEqual({ embedding: 2 });
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatch(/^\[panoptes\] The embedder failed or ran out of time/);
  });

  it('survives a store that throws: the call proceeds and the failure is counted', async () => {
    const logger = recordingLogger();
    const store = { get: () => Promise.reject(new Error('redis down')), set: () => Promise.reject(new Error('redis down')), delete: () => {} };
    const monitor = createMonitor({ workflow, store, logger });
    const input = request();
    const before = await monitor.beforeModel('s1', input);
    expect(before).toMatchObject({ action: 'proceed', interventions: [] });
    expect(before.action === 'proceed' && before.messages).toBe(input.messages);
    await monitor.afterModel('s1', say('hello'));
    expect(monitor.misses().store).toBe(3); // two reads and afterModel's write (nothing was due to write before)
    expect(logger.warnings).toHaveLength(1);
  });

  it('survives a listener that throws', async () => {
    const logger = recordingLogger();
    const monitor = createMonitor({ workflow, logger });
    monitor.on('state-change', () => {
      throw new Error('bad listener');
    });
    await expect(monitor.afterModel('s1', say('tell me more'))).resolves.toBeDefined();
    expect(monitor.misses()).toEqual({ listener: 1 });
  });
});

describe('bad input', () => {
  it('reads odd turns as empty instead of crashing', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const odd = { content: null, toolCalls: [null, { name: 42 }, { name: 'verify_identity', args: {} }] } as never;
    const result = await monitor.afterModel('s1', odd);
    expect(result.classifications).toEqual([expect.objectContaining({ state: 'verify_identity', method: 'tool_call' })]);
  });

  it('classifies an empty turn as staying put', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const result = await monitor.afterModel('s1', say(''));
    expect(result.classifications).toEqual([expect.objectContaining({ state: 'greeting', method: 'fallback', confidence: 0 })]);
  });

  it('allows a tool the workflow does not know, entering nothing', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    expect(await monitor.beforeTool('s1', { name: 'weather', args: {} })).toEqual({ action: 'allow', effects: [] });
  });

  it('rejects a bad historyLimit at construction', () => {
    expect(() => createMonitor({ workflow, historyLimit: 0 })).toThrow('Invalid option `historyLimit`: received 0.');
  });

  it('uses the injected clock for every record', async () => {
    const clock = createFakeClock(1000);
    const monitor = createMonitor({ workflow, clock, logger: recordingLogger() });
    await monitor.afterModel('s1', say('hello'));
    clock.advance(500);
    await monitor.afterModel('s1', say('tell me more'));
    const { startedAt, updatedAt } = (await monitor.session('s1'))!.workflow;
    expect([startedAt, updatedAt]).toEqual([1000, 1500]);
  });
});

describe('beforeTool with a guard', () => {
  const verifyCall = { id: 'verify_identity-1', name: 'verify_identity', args: {} };

  it('asks the guard only when the workflow allows the call, and enters nothing the guard refuses', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const asked: string[] = [];
    const refuse = (toolCall: { name: string }) => {
      asked.push(toolCall.name);
      return { allowed: false as const, reason: 'Ask the customer for their account number first.' };
    };
    await monitor.afterModel('s1', say('tell me more'));
    await monitor.afterModel('s1', call('verify_identity'));
    expect(await monitor.beforeTool('s1', verifyCall, { guard: refuse })).toEqual({
      action: 'deny',
      by: 'guard',
      state: 'verify_identity',
      reason: 'Ask the customer for their account number first.',
      constraints: [],
      effects: [expect.objectContaining({ type: 'call-refused' })],
    });
    const session = (await monitor.session('s1'))!;
    expect(session.workflow.trace).toEqual(['greeting', 'identify_issue']);
    expect(session.workflow.interventions.pending).toEqual([]); // the guard's text already told the model

    await monitor.afterModel('s1', call('issue_refund'));
    const denied = await monitor.beforeTool('s1', { id: 'issue_refund-1', name: 'issue_refund', args: {} }, { guard: refuse });
    expect(denied).toMatchObject({ action: 'deny', by: 'workflow' });
    expect(asked).toEqual(['verify_identity']); // the workflow refused first; the guard was not asked
  });

  it('fails closed when the guard throws, and still guards tools the workflow does not know', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const broken = () => {
      throw new Error('rules engine crashed');
    };
    const result = await monitor.beforeTool('s1', { name: 'weather', args: {} }, { guard: broken });
    expect(result).toEqual({
      action: 'deny',
      by: 'guard',
      reason: 'The call to weather was refused: its policy check failed, so it did not run.',
      constraints: [],
      effects: [],
    });
  });
});

describe('peek', () => {
  it('tells what the next call will do without using it up', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    await monitor.afterModel('s1', call('close_account')); // unguarded: a critical violation at the next call
    expect(await monitor.peek('s1')).toEqual({ action: 'block', intervention: expect.objectContaining({ name: 'verify_first' }) });
    expect(await monitor.peek('s1')).toEqual(await monitor.peek('s1'));
    expect((await monitor.beforeModel('s1', request())).action).toBe('block');
    expect(await monitor.peek('s1')).toEqual({ action: 'proceed', interventions: [] });
  });
});

describe('beforeModel results and lazy requests as plain data', () => {
  it('keep their messages when spread or logged with JSON.stringify (they are read only if asked for)', async () => {
    const monitor = createMonitor({ workflow: parseWorkflow('name: x\nstates: [{ name: a, initial: true }]') });
    const messages = [{ role: 'user' as const, content: 'hi' }];
    let built = 0;
    const request = lazyModelRequest(() => (built++, messages));
    const result = await monitor.beforeModel('s1', request);
    expect(built).toBe(0); // nothing due: the messages were not built
    expect({ ...result }).toMatchObject({ action: 'proceed', interventions: [], messages });
    expect(JSON.parse(JSON.stringify(result))).toEqual({ action: 'proceed', interventions: [], messages });
    expect(JSON.parse(JSON.stringify(request))).toEqual({ messages });
    expect(built).toBe(1);
  });
});
