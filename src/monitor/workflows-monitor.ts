/**
 * A monitor of several workflows: one monitor per workflow, all over one store (each under its own key prefix), and
 * in front of them the choice of a session's workflow, made once and stored with the session so that every process
 * sharing the store runs the session under the same workflow.
 * @module
 */
import { andThen, attempt, TimedOut, within, type MaybePromise } from '../async/index.js';
import { systemClock, systemTimers } from '../clock/index.js';
import { InvalidOptionError } from '../errors/index.js';
import { createLifecycle } from '../lifecycle/index.js';
import type { ChatMessage } from '../messages/index.js';
import { createConversationSessions } from '../session/index.js';
import { createMemorySessionStore, type SessionStore } from '../store/index.js';
import { createTelemetry, telemetryOptionsOf } from '../telemetry/index.js';
import { compileSelect, isWorkflowId, namespacedStore, workflowNamespace, type CompiledSelect, type WorkflowSelectionInput } from '../workflow-choice/index.js';
import type { Workflow } from '../workflow/index.js';
import { DEFAULT_STORE_TIMEOUT_MS } from './defaults.js';
import { createMissCounter, type MissCause } from './fail-open.js';
import { MEMBER, type MemberOptions } from './member.js';
import { createMonitor, resolveLoopDetector } from './monitor.js';
import { createSessionIo } from './session-io.js';
import { registerSyncFirst, syncFirst, type SyncFirstMonitor } from './sync-first.js';
import type { Monitor, MonitorEvents, MonitorSession, ModelRequest } from './types.js';
import type { WorkflowsMonitor, WorkflowsMonitorOptions } from './workflows-types.js';

/** Default budget of one call of a `select` function, in milliseconds. */
export const DEFAULT_SELECT_TIMEOUT_MS = 5000;

/** What a session's choice of workflow is stored as, under {@link choiceKey}. */
interface StoredChoice {
  workflow: string;
  /** When it was made, in milliseconds since the epoch. */
  at: number;
}

/** Where a session's choice is kept: apart from every workflow's sessions (`wf:<id>:`), which no choice key starts with. */
const choiceKey = (sessionId: string): string => `wf-choice:${sessionId}`;

/** What the first call of a session tells the selector: the attributes it was started with, its request. */
interface FirstCall {
  attributes?: Readonly<Record<string, unknown>>;
  request?: ModelRequest;
}

interface Member {
  id: string;
  monitor: Monitor;
  calls: SyncFirstMonitor;
}

/**
 * Creates a monitor of several workflows (see {@link WorkflowsMonitorOptions}).
 * @throws {InvalidOptionError} for no workflows, an id that is not one, a value that is not a workflow, a `default`
 * that names none of them, a selector of no known form, or any invalid option of a monitor.
 */
export function createWorkflowsMonitor(options: WorkflowsMonitorOptions): WorkflowsMonitor {
  const { workflows, default: defaultId, select, selectTimeoutMs = DEFAULT_SELECT_TIMEOUT_MS, store: storeOption, loops: loopsOption, ...shared } = options;
  const ids = checkWorkflows(workflows, defaultId, options);
  if (!(typeof selectTimeoutMs === 'number' && selectTimeoutMs > 0 && Number.isFinite(selectTimeoutMs))) {
    throw new InvalidOptionError({ parameter: 'selectTimeoutMs', value: selectTimeoutMs, fix: 'Pass a positive number of milliseconds; the default is 5000.' });
  }
  const selector: CompiledSelect | undefined = select === undefined ? undefined : compileSelect(select, ids);
  const { clock = systemClock, timers = systemTimers, logger = console, storeTimeoutMs = DEFAULT_STORE_TIMEOUT_MS } = shared;
  const store = (storeOption ?? createMemorySessionStore<unknown>({ clock })) as SessionStore<unknown> & { settled?: () => Promise<void> };
  const telemetry = createTelemetry({ ...telemetryOptionsOf(shared), onFailure: (error) => misses.record('telemetry', 'The OpenTelemetry SDK threw; the metric was dropped.', error) });
  const misses = createMissCounter(logger, telemetry);
  // One detector for every workflow (sessions are its keys), so a host reading `monitor.loops` finds every session's.
  const loops = resolveLoopDetector(loopsOption, {
    ...(shared.embeddings ? { embedder: shared.embeddings } : {}),
    clock,
    logger,
    missCounter: misses,
    ...(shared.tracer ? { tracer: shared.tracer } : {}),
    ...(shared.meter ? { meter: shared.meter } : {}),
    ...(shared.telemetry === false ? { telemetry: false } : {}),
  });
  const conversations = createConversationSessions<MonitorSession>();
  const members = new Map<string, Member>(
    ids.map((id) => {
      const member: MemberOptions = { workflowId: id, conversations };
      const monitor = createMonitor({ ...shared, workflow: workflows[id]!, store: namespacedStore(store as SessionStore<MonitorSession>, workflowNamespace(id)), ...(loops ? { loops } : {}), [MEMBER]: member } as Parameters<typeof createMonitor>[0]);
      return [id, { id, monitor, calls: syncFirst(monitor) }];
    }),
  );
  const fallback = members.get(defaultId)!;
  const choices = createSessionIo<StoredChoice>(store as SessionStore<StoredChoice>, misses, { timeoutMs: storeTimeoutMs, timers, isSession: isStoredChoice });
  const exclusive = store.exclusive?.bind(store);
  /** Choices being made, by session: a second call of the session waits for the first's. */
  const choosing = new Map<string, Promise<Member>>();
  const selectionMiss = (message: string, error?: unknown) => misses.record('selection', `${message}; the session runs under the default workflow '${defaultId}'.`, error);

  /** The member a stored choice names; the default, counted, for an id this monitor does not have. */
  const memberNamed = (id: string): Member => {
    const found = members.get(id);
    if (found) return found;
    selectionMiss(`A session's stored workflow '${id}' is not one of this monitor's (${ids.join(', ')})`);
    return fallback;
  };

  /**
   * The session's workflow: the stored choice; else, for a call that starts the session (`first`), a choice made now
   * and stored; else (a call that only reads) the default, nothing stored.
   */
  function memberOf(sessionId: string, first?: FirstCall): MaybePromise<Member> {
    const pending = choosing.get(sessionId);
    if (pending) return pending;
    return andThen(choices.load(choiceKey(sessionId)), (stored) => {
      if (stored) return memberNamed(stored.workflow);
      if (!first) return fallback;
      const again = choosing.get(sessionId); // another call of the session started choosing while this one read
      if (again) return again;
      const chosen = andThen(decide(sessionId, first), memberNamed);
      if (chosen instanceof Promise) {
        choosing.set(sessionId, chosen);
        const done = () => choosing.delete(sessionId);
        chosen.then(done, done);
      }
      return chosen;
    });
  }

  /**
   * Chooses the session's workflow and stores the choice. A store shared between processes holds the session's lease
   * meanwhile and reads again under it: the first process to choose wins, and the others take its choice.
   */
  function decide(sessionId: string, first: FirstCall): MaybePromise<string> {
    const key = choiceKey(sessionId);
    const choose = (): MaybePromise<string> =>
      andThen(exclusive ? choices.load(key) : undefined, (stored) => {
        if (stored) return stored.workflow;
        return andThen(selected(sessionId, first), (id) => andThen(choices.save(key, { workflow: id, at: clock.now() }), () => id));
      });
    return exclusive ? exclusive(key, choose) : choose();
  }

  /** What the selector chooses, checked: a fork of a conversation keeps its source's workflow; a failure, the default. */
  function selected(sessionId: string, first: FirstCall): MaybePromise<string> {
    const source = conversations.forkSource(sessionId);
    const sourceIds = source ? ids.filter((id) => workflows[id]!.name === source.workflow.workflow) : [];
    if (sourceIds.length === 1) return sourceIds[0]!;
    if (!selector) return defaultId;
    return attempt(
      () => within(selector(selectionInput(sessionId, first)) as MaybePromise<unknown>, selectTimeoutMs, timers),
      (choice) => {
        if (choice === undefined) return defaultId;
        if (typeof choice === 'string' && members.has(choice)) return choice;
        selectionMiss(`The workflow selector chose ${JSON.stringify(choice) ?? String(choice)}, which is none of this monitor's workflows (${ids.join(', ')})`);
        return defaultId;
      },
      (error) => {
        if (error instanceof TimedOut) selectionMiss(`The workflow selector did not answer within ${selectTimeoutMs} ms`);
        else selectionMiss('The workflow selector threw or rejected', error);
        return defaultId;
      },
    );
  }

  /** Routes a call to the session's member; `first` when the call may start the session. */
  const routed = <T>(sessionId: string, first: FirstCall | undefined, call: (member: Member) => MaybePromise<T>): MaybePromise<T> => andThen(memberOf(sessionId, first), call);
  const STARTS: FirstCall = {};

  const calls: SyncFirstMonitor = {
    beforeModel: (sessionId, request) => routed(sessionId, { request }, (member) => member.calls.beforeModel(sessionId, request)),
    afterModel: (sessionId, turn, afterOptions) => routed(sessionId, afterOptions?.metadata ? { attributes: afterOptions.metadata } : STARTS, (member) => member.calls.afterModel(sessionId, turn, afterOptions)),
    beforeTool: (sessionId, toolCall, toolOptions) => routed(sessionId, STARTS, (member) => member.calls.beforeTool(sessionId, toolCall, toolOptions)),
    watchText: (sessionId) => routed(sessionId, undefined, (member) => member.calls.watchText(sessionId)),
  };
  const each = [...members.values()];

  const monitor: WorkflowsMonitor = {
    workflow: fallback.monitor.workflow,
    workflows,
    defaultWorkflow: defaultId,
    ...(loops ? { loops } : {}),
    conversations,
    warmUp: () => Promise.all(each.map((member) => member.monitor.warmUp())).then(() => undefined),
    ready: () => Promise.all(each.map((member) => member.monitor.ready())).then(() => undefined),
    misses: () => sumMisses([misses.counts(), ...each.map((member) => member.monitor.misses())]),
    on: <Name extends keyof MonitorEvents>(event: Name, listener: (payload: MonitorEvents[Name]) => void) => {
      const offs = each.map((member) => member.monitor.on(event, listener));
      return () => offs.forEach((off) => off());
    },
    // Every member's listeners are the monitor's: the default's emitter reaches them all once.
    recordShadowDisagreement: (sessionId, disagreement) => fallback.monitor.recordShadowDisagreement(sessionId, disagreement),

    beforeModel: async (sessionId, request) => calls.beforeModel(sessionId, request),
    afterModel: async (sessionId, turn, afterOptions) => calls.afterModel(sessionId, turn, afterOptions),
    watchText: async (sessionId) => calls.watchText(sessionId),
    beforeTool: async (sessionId, toolCall, toolOptions) => calls.beforeTool(sessionId, toolCall, toolOptions),
    observeToolResults: async (sessionId, results) => routed(sessionId, undefined, (member) => member.monitor.observeToolResults(sessionId, results)),
    observeCondensation: async (sessionId) => routed(sessionId, undefined, (member) => member.monitor.observeCondensation(sessionId)),
    noteRefusals: async (sessionId, reasons) => routed(sessionId, STARTS, (member) => member.monitor.noteRefusals(sessionId, reasons)),
    peek: async (sessionId) => routed(sessionId, undefined, (member) => member.monitor.peek(sessionId)),
    session: async (sessionId) => routed(sessionId, undefined, (member) => member.monitor.session(sessionId)),
    endSession: async (sessionId) => routed(sessionId, STARTS, (member) => andThen(member.monitor.endSession(sessionId), (report) => ({ ...report, workflowId: member.id }))),
    report: async (sessionId) => routed(sessionId, undefined, (member) => andThen(member.monitor.report(sessionId), (report) => report && { ...report, workflowId: member.id })),
    validNextStates: async (sessionId, input) => routed(sessionId, undefined, (member) => andThen(member.monitor.validNextStates(sessionId, input), (next) => ({ ...next, workflowId: member.id }))),
    history: async (sessionId) => routed(sessionId, undefined, (member) => andThen(member.monitor.history(sessionId), (history) => history && { ...history, workflowId: member.id })),
    // The session keeps its workflow: the choice is the session's, made once.
    resetSession: async (sessionId) => routed(sessionId, STARTS, (member) => member.monitor.resetSession(sessionId)),
    startSession: async (sessionId, { attributes = {} } = {}) => andThen(memberOf(sessionId, { attributes }), (member) => member.id),
    workflowOf: async (sessionId) => andThen(choices.load(choiceKey(sessionId)), (stored) => stored && memberNamed(stored.workflow).id),
    close: () => lifecycle.close(async () => void (await Promise.all(each.map((member) => member.monitor.close())))),
  };
  const lifecycle = createLifecycle('monitor');
  lifecycle.guard(monitor, SESSION_CALLS);
  lifecycle.guard(calls, ['beforeModel', 'afterModel', 'watchText', 'beforeTool']);
  registerSyncFirst(monitor, calls);
  return monitor;
}

/** The calls that read or write a session: refused once the monitor is closed. */
const SESSION_CALLS = ['beforeModel', 'afterModel', 'watchText', 'beforeTool', 'observeToolResults', 'observeCondensation', 'noteRefusals', 'peek', 'endSession', 'report', 'session', 'validNextStates', 'history', 'resetSession', 'startSession', 'workflowOf'] as const;

/** The selector's view of a session's first call; the first user message is read (and the request converted) only if asked for. */
function selectionInput(sessionId: string, { attributes = {}, request }: FirstCall): WorkflowSelectionInput {
  let firstMessage: string | undefined | null = null;
  return {
    sessionId,
    attributes,
    get firstMessage() {
      if (firstMessage === null) firstMessage = firstUserText(request?.messages);
      return firstMessage;
    },
  };
}

function firstUserText(messages: readonly ChatMessage[] | undefined): string | undefined {
  const first = Array.isArray(messages) ? messages.find((message) => message?.role === 'user') : undefined;
  return typeof first?.content === 'string' ? first.content : undefined;
}

/** The workflow ids, checked: at least one, each an id and a workflow, and the default among them. */
function checkWorkflows(workflows: WorkflowsMonitorOptions['workflows'], defaultId: string, options: object): string[] {
  if ('workflow' in options && (options as { workflow?: unknown }).workflow !== undefined) {
    throw new InvalidOptionError({ parameter: 'workflow', value: (options as { workflow: Workflow }).workflow?.name, fix: 'Pass either `workflow` (one workflow) or `workflows` (several, with `default`), not both.' });
  }
  if (typeof workflows !== 'object' || workflows === null || Array.isArray(workflows) || Object.keys(workflows).length === 0) {
    throw new InvalidOptionError({ parameter: 'workflows', value: workflows, fix: 'Pass the workflows by id: { support: supportWorkflow, refunds: refundsWorkflow }.' });
  }
  const ids = Object.keys(workflows);
  for (const id of ids) {
    if (!isWorkflowId(id)) throw new InvalidOptionError({ parameter: `workflows.${id}`, value: id, fix: 'Use an id of letters, digits, _ and - (at most 64): it names the workflow in the store, reports and spans.' });
    const workflow = workflows[id] as Partial<Workflow> | undefined;
    if (typeof workflow?.name !== 'string' || typeof workflow.definition !== 'object') {
      throw new InvalidOptionError({ parameter: `workflows.${id}`, value: workflow, fix: 'Pass a workflow from loadWorkflow, parseWorkflow or defineWorkflow.' });
    }
  }
  if (typeof defaultId !== 'string' || !ids.includes(defaultId)) {
    throw new InvalidOptionError({ parameter: 'default', value: defaultId, fix: `Name the workflow a session runs under when none is chosen: one of ${ids.join(', ')}.` });
  }
  return ids;
}

function isStoredChoice(value: unknown): value is StoredChoice {
  return typeof value === 'object' && value !== null && typeof (value as StoredChoice).workflow === 'string';
}

function sumMisses(counts: ReadonlyArray<Readonly<Partial<Record<MissCause, number>>>>): Readonly<Partial<Record<MissCause, number>>> {
  const sum: Partial<Record<MissCause, number>> = {};
  for (const each of counts) for (const [cause, count] of Object.entries(each) as Array<[MissCause, number]>) sum[cause] = (sum[cause] ?? 0) + count;
  return sum;
}
