import { describe, expect, it } from 'vitest';
import { ClosedError, createMonitor, InvalidOptionError, isPromiseLike, parseWorkflow, syncFirst, type SessionStore, type WorkflowsMonitorOptions } from '../../src/index.js';
import { createOtel } from '../telemetry/harness.js';
import { call, recordingLogger, refundsWorkflow as refunds, say } from './fixtures.js';

/** Support: verify the customer before a refund (critical). */
const support = parseWorkflow(`
name: support
states:
  - { name: greeting, initial: true }
  - { name: verify, classification: { tool_calls: [verify_identity] } }
  - { name: refund, classification: { tool_calls: [issue_refund] } }
transitions:
  - { from: greeting, to: verify }
  - { from: verify, to: refund }
constraints:
  - { name: verify_first, type: precedence, trigger: refund, target: verify, severity: critical }
`);


const user = (content: string) => ({ messages: [{ role: 'system' as const, content: 'You help customers.' }, { role: 'user' as const, content }] });

/** A store over a plain map, so a test can see the keys written. */
function mapStore(): SessionStore<unknown> & { entries: Map<string, unknown> } {
  const entries = new Map<string, unknown>();
  return { entries, get: (id) => entries.get(id), set: (id, value) => void entries.set(id, value), delete: (id) => void entries.delete(id) };
}

function twoWorkflows(options: Partial<WorkflowsMonitorOptions> = {}) {
  const logger = recordingLogger();
  const monitor = createMonitor({ workflows: { support, refunds }, default: 'support', logger, ...options });
  return { monitor, logger };
}

describe('createMonitor({ workflows }): a workflow per session', () => {
  it('chooses by the first user message, and each session is checked against its own workflow', async () => {
    const { monitor } = twoWorkflows({ select: { firstMessage: { refunds: ['\\brefund', /money back/] } } });
    await monitor.beforeModel('r1', user('I want a refund for booking B1'));
    await monitor.beforeModel('s1', user('Hello, I moved house'));

    // The same tool call: refunds wants a lookup before it, support an identity check.
    await monitor.afterModel('r1', call('get_booking'));
    expect((await monitor.beforeTool('r1', { id: 'get_booking-1', name: 'get_booking', args: {} })).action).toBe('allow');
    await monitor.afterModel('r1', call('issue_refund'));
    expect((await monitor.beforeTool('r1', { id: 'issue_refund-1', name: 'issue_refund', args: {} })).action).toBe('allow');
    await monitor.afterModel('s1', call('issue_refund'));
    const denied = await monitor.beforeTool('s1', { id: 'issue_refund-1', name: 'issue_refund', args: {} });
    expect(denied).toMatchObject({ action: 'deny', by: 'workflow', constraints: ['verify_first'] });

    expect(await monitor.report('r1')).toMatchObject({ workflowId: 'refunds', workflow: 'refunds', trace: ['start', 'lookup', 'refund'] });
    expect(await monitor.report('s1')).toMatchObject({ workflowId: 'support', workflow: 'support', trace: ['greeting'] });
    expect(await monitor.workflowOf('r1')).toBe('refunds');
    expect(await monitor.history('r1')).toMatchObject({ workflowId: 'refunds', initial: { state: 'start' }, state: 'refund' });
    expect(await monitor.validNextStates('s1')).toMatchObject({ workflowId: 'support', state: 'greeting', valid: ['verify'] });
    expect((await monitor.endSession('r1')).workflowId).toBe('refunds');
    expect(monitor.misses()).toEqual({});
  });

  it('keeps the choice for the rest of the session: a later message that would choose another changes nothing', async () => {
    const { monitor } = twoWorkflows({ select: { firstMessage: { refunds: ['refund'] } } });
    await monitor.beforeModel('s1', user('Hello'));
    await monitor.afterModel('s1', say('How can I help?'));
    await monitor.beforeModel('s1', { messages: [...user('Hello').messages, { role: 'assistant', content: 'How can I help?' }, { role: 'user', content: 'a refund please' }] });
    expect(await monitor.workflowOf('s1')).toBe('support');
    expect(await monitor.startSession('s1', { attributes: { team: 'refunds' } })).toBe('support');
    // Resetting puts the session back to its workflow's start; the workflow stays.
    await monitor.resetSession('s1');
    expect(await monitor.report('s1')).toMatchObject({ workflowId: 'support', trace: ['greeting'] });
  });

  it('chooses by a session attribute given at the start, or by the first afterModel metadata', async () => {
    const { monitor } = twoWorkflows({ select: { attribute: 'team' } });
    expect(await monitor.startSession('a1', { attributes: { team: 'refunds' } })).toBe('refunds');
    expect(await monitor.workflowOf('a1')).toBe('refunds');
    await monitor.afterModel('a2', call('get_booking'), { metadata: { team: 'refunds' } });
    expect((await monitor.report('a2'))!.workflowId).toBe('refunds');
    await monitor.beforeModel('a3', user('hi'));
    expect(await monitor.workflowOf('a3')).toBe('support');
    expect(monitor.misses()).toEqual({});
  });

  it('chooses by a function, once per session even when its calls overlap', async () => {
    const asked: string[] = [];
    const { monitor } = twoWorkflows({
      select: async ({ sessionId, firstMessage }) => {
        asked.push(`${sessionId}:${firstMessage}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return sessionId.startsWith('refund-') ? 'refunds' : undefined;
      },
    });
    await Promise.all([monitor.beforeModel('refund-1', user('first')), monitor.afterModel('refund-1', call('get_booking')), monitor.beforeModel('other', user('second'))]);
    expect(asked.sort()).toEqual(['other:second', 'refund-1:first']);
    expect(await monitor.workflowOf('refund-1')).toBe('refunds');
    expect(await monitor.workflowOf('other')).toBe('support');
  });

  it('without a selector, and for calls that only read a session not started, is the default and stores nothing', async () => {
    const store = mapStore();
    const { monitor } = twoWorkflows({ store });
    expect(await monitor.report('s1')).toBeUndefined();
    expect(await monitor.history('s1')).toBeUndefined();
    expect(await monitor.validNextStates('s1')).toMatchObject({ workflowId: 'support', state: 'greeting' });
    expect(await monitor.workflowOf('s1')).toBeUndefined();
    expect([...store.entries.keys()]).toEqual([]);
    await monitor.afterModel('s1', call('verify_identity'));
    expect(await monitor.workflowOf('s1')).toBe('support');
    expect(monitor.workflow).toBe(support);
    expect(monitor.workflows).toEqual({ support, refunds });
  });

  it("keeps each workflow's sessions under a key of its own, and the choice apart from both", async () => {
    const store = mapStore();
    const { monitor } = twoWorkflows({ store, select: ({ attributes }) => attributes.team as string | undefined });
    await monitor.startSession('same', { attributes: { team: 'refunds' } });
    await monitor.afterModel('same', call('get_booking'));
    await monitor.afterModel('other', call('verify_identity'));
    expect([...store.entries.keys()].sort()).toEqual(['wf-choice:other', 'wf-choice:same', 'wf:refunds:same', 'wf:support:other']);
    expect(store.entries.get('wf-choice:same')).toMatchObject({ workflow: 'refunds' });
    // A second monitor of the same workflows over the store finds the session where the first left it.
    const again = createMonitor({ workflows: { support, refunds }, default: 'support', store, logger: recordingLogger() });
    expect(await again.report('same')).toMatchObject({ workflowId: 'refunds', trace: ['start'] });
  });

  it('fails closed to the default when the selector names no workflow, throws or hangs: counted, logged once', async () => {
    const cases: Array<[string, WorkflowsMonitorOptions['select'], string]> = [
      ['unknown', () => 'billing', `The workflow selector chose "billing", which is none of this monitor's workflows (support, refunds); the session runs under the default workflow 'support'.`],
      ['not a string', () => 42 as unknown as string, 'The workflow selector chose 42, which is none'],
      ['throws', () => { throw new Error('classifier down'); }, "The workflow selector threw or rejected; the session runs under the default workflow 'support'."],
      ['rejects', async () => Promise.reject(new Error('classifier down')), 'The workflow selector threw or rejected'],
      ['hangs', () => new Promise<string>(() => {}), 'The workflow selector did not answer within 30 ms'],
    ];
    for (const [name, select, message] of cases) {
      const { monitor, logger } = twoWorkflows({ select, selectTimeoutMs: 30 });
      await monitor.beforeModel('s1', user('a refund'));
      await monitor.beforeModel('s2', user('a refund'));
      expect(await monitor.workflowOf('s1'), name).toBe('support');
      expect(monitor.misses(), name).toEqual({ selection: 2 });
      expect(logger.warnings.filter((warning) => warning.includes('selector')), name).toHaveLength(1);
      expect(logger.warnings[0], name).toContain(message);
      // The choice is kept: the next call of the session does not ask again.
      await monitor.afterModel('s1', say('ok'));
      expect(monitor.misses(), name).toEqual({ selection: 2 });
    }
  });

  it('runs a session whose stored choice names a workflow it does not have under the default, counted', async () => {
    const store = mapStore();
    store.entries.set('wf-choice:s1', { workflow: 'billing', at: 0 });
    const { monitor, logger } = twoWorkflows({ store });
    expect(await monitor.workflowOf('s1')).toBe('support');
    await monitor.afterModel('s1', call('verify_identity'));
    expect((await monitor.report('s1'))!.workflowId).toBe('support');
    expect(monitor.misses().selection).toBeGreaterThanOrEqual(2);
    expect(logger.warnings[0]).toContain("A session's stored workflow 'billing' is not one of this monitor's (support, refunds)");
    expect(store.entries.get('wf-choice:s1')).toEqual({ workflow: 'billing', at: 0 }); // left for a process that has it
  });

  it('puts the workflow id on the spans of each session', async () => {
    const otel = createOtel();
    const { monitor } = twoWorkflows({ tracer: otel.tracer, select: { firstMessage: { refunds: ['refund'] } } });
    await monitor.beforeModel('r1', user('refund please'));
    await monitor.afterModel('r1', call('get_booking'));
    await monitor.afterModel('s1', say('hello'));
    const checks = otel.spans().filter((span) => span.name.startsWith('panoptes.check'));
    expect(checks.map((span) => [span.attributes['session.id'], span.attributes['panoptes.workflow'], span.attributes['panoptes.workflow.id']])).toEqual([
      ['r1', 'refunds', 'refunds'],
      ['s1', 'support', 'support'],
    ]);
  });

  it('answers on the model call path without a promise when the store is in memory and the selector is sync', async () => {
    const { monitor } = twoWorkflows({ select: { firstMessage: { refunds: ['refund'] } } });
    const calls = syncFirst(monitor);
    const before = calls.beforeModel('r1', user('refund please'));
    const after = calls.afterModel('r1', call('get_booking'));
    const tool = calls.beforeTool('r1', { id: 'get_booking-1', name: 'get_booking', args: {} });
    expect([before, after, tool].map(isPromiseLike)).toEqual([false, false, false]);
    expect(await monitor.report('r1')).toMatchObject({ workflowId: 'refunds', trace: ['start', 'lookup'] });
  });

  it('counts a selection miss on the panoptes.misses metric', async () => {
    const otel = createOtel();
    const { monitor } = twoWorkflows({ meter: otel.meter, select: () => 'billing' });
    await monitor.beforeModel('s1', user('hi'));
    expect(await otel.points('panoptes.misses')).toEqual([{ attributes: { 'panoptes.miss.cause': 'selection' }, value: 1 }]);
  });

  it("emits every workflow's events to the monitor's listeners, and refuses calls once closed", async () => {
    const { monitor } = twoWorkflows({ select: { attribute: 'team' } });
    const changes: string[] = [];
    monitor.on('state-change', ({ sessionId, to }) => changes.push(`${sessionId}:${to}`));
    await monitor.startSession('r1', { attributes: { team: 'refunds' } });
    await monitor.afterModel('r1', call('get_booking'));
    await monitor.beforeTool('r1', { id: 'get_booking-1', name: 'get_booking', args: {} });
    await monitor.afterModel('s1', call('verify_identity'));
    await monitor.beforeTool('s1', { id: 'verify_identity-1', name: 'verify_identity', args: {} });
    expect(changes).toEqual(['r1:lookup', 's1:verify']);
    await monitor.close();
    await expect(monitor.beforeModel('r1', user('x'))).rejects.toBeInstanceOf(ClosedError);
    await expect(monitor.startSession('r2')).rejects.toBeInstanceOf(ClosedError);
  });

  it('runs a fork of a conversation under the workflow of the session it forks', async () => {
    let chosen = 0;
    const { monitor } = twoWorkflows({ select: () => (chosen++ === 0 ? 'refunds' : undefined) });
    const first = user('refund please').messages;
    const source = monitor.conversations.sessionOf(first);
    await monitor.beforeModel(source, { messages: first });
    await monitor.afterModel(source, call('get_booking'));
    monitor.conversations.answered(source, call('get_booking'));
    const next = [...first, { role: 'assistant' as const, content: '', toolCalls: [{ id: 'get_booking-1', name: 'get_booking', args: {} }] }, { role: 'tool' as const, content: 'B1', toolCallId: 'get_booking-1' }];
    expect(monitor.conversations.sessionOf(next)).toBe(source);
    // A second request continuing the same answer (a retry) gets a session of its own, copied from the first.
    const fork = monitor.conversations.sessionOf(next);
    expect(fork).not.toBe(source);
    await monitor.beforeModel(fork, { messages: next });
    expect(await monitor.workflowOf(fork)).toBe('refunds');
    expect(await monitor.report(fork)).toMatchObject({ workflowId: 'refunds', trace: ['start', 'lookup'] });
    expect(chosen).toBe(1);
  });

  it('refuses bad options when made, saying which and how to fix it', () => {
    const make = (options: Record<string, unknown>) => () => createMonitor({ workflows: { support, refunds }, default: 'support', ...options } as WorkflowsMonitorOptions);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ workflows: {} }, 'Invalid option `workflows`: received {}. Pass the workflows by id'],
      [{ workflows: { 'two words': support }, default: 'two words' }, 'Invalid option `workflows.two words`: received "two words". Use an id of letters, digits, _ and -'],
      [{ workflows: { support: { name: 'x' } } }, 'Invalid option `workflows.support`'],
      [{ default: 'billing' }, 'Invalid option `default`: received "billing". Name the workflow a session runs under when none is chosen: one of support, refunds.'],
      [{ workflow: support }, 'Invalid option `workflow`: received "support". Pass either `workflow` (one workflow) or `workflows` (several, with `default`), not both.'],
      [{ select: 'refunds' }, 'Invalid option `select`: received "refunds". Pass a function of the session'],
      [{ select: { attribute: '' } }, 'Invalid option `select.attribute`'],
      [{ select: { firstMessage: { billing: ['bill'] } } }, "Invalid option `select.firstMessage.billing`: received \"billing\". Name one of the monitor's workflows: support, refunds."],
      [{ select: { firstMessage: { refunds: [] } } }, 'Invalid option `select.firstMessage.refunds`: received []. Pass a non-empty list of patterns'],
      [{ select: { firstMessage: { refunds: ['(a+)+$'] } } }, 'Invalid option `select.firstMessage.refunds[0]`: received "(a+)+$". pattern /(a+)+$/ can backtrack catastrophically'],
      [{ select: { firstMessage: { refunds: [/(x+)+y/] } } }, 'Invalid option `select.firstMessage.refunds[0]`'],
      [{ select: { firstMessage: { refunds: ['(unclosed'] } } }, 'does not compile'],
      [{ selectTimeoutMs: 0 }, 'Invalid option `selectTimeoutMs`: received 0.'],
      [{ historyLimit: 0 }, 'Invalid option `historyLimit`'],
    ];
    for (const [options, message] of cases) {
      expect(make(options), JSON.stringify(options)).toThrow(InvalidOptionError);
      expect(make(options), JSON.stringify(options)).toThrow(message);
    }
  });

  it('leaves createMonitor({ workflow }) as it was: no workflow id anywhere', async () => {
    const monitor = createMonitor({ workflow: support, logger: recordingLogger() });
    await monitor.afterModel('s1', call('verify_identity'));
    const report = (await monitor.report('s1'))!;
    expect('workflowId' in report).toBe(false);
    expect('startSession' in monitor).toBe(false);
  });
});
