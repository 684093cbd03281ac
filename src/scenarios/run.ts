import { readFile } from 'node:fs/promises';
import { systemClock, type Clock } from '../clock/index.js';
import { convertMessages, parseTranscripts } from '../audit/index.js';
import { isReadFailure, readFailureDiagnostic, readFailureLine } from '../diagnostics/read-failure.js';
import { WorkflowValidationError } from '../errors/index.js';
import { createFactStore } from '../facts/index.js';
import { createSentinel, type Sentinel } from '../guards/index.js';
import type { ChatMessage } from '../messages/index.js';
import { createMonitor, type Logger, type ToolGuard } from '../monitor/index.js';
import { loadRulebase, type Rulebase } from '../rules/index.js';
import { loadWorkflow, type Workflow } from '../workflow/index.js';
import type { Monitor } from '../monitor/index.js';
import type { Registry } from '../registry/index.js';
import { compareExpectations } from './compare.js';
import { coverageOf } from './coverage.js';
import type { Scenario, ScenarioReport, ScenarioResult, ToolFixture } from './types.js';

/** Options of {@link runScenarios}. */
export interface RunScenariosOptions {
  /** The workflow file for scenarios that name none. */
  workflow?: string;
  /** Called after each scenario, for a progress bar. */
  onProgress?: (progress: { done: number; total: number }) => void;
  /** Receives the monitor's own failures. @default a logger that drops them: a scenario's verdict is the report */
  logger?: Logger;
  /** Where time comes from for the monitor. @default systemClock */
  clock?: Clock;
  /** The constraint types, strategies and tiers the workflows may name. @default defaultRegistry */
  registry?: Registry;
}

const SILENT: Logger = { warn: () => undefined };

/**
 * Runs scenarios through the workflow monitor (and, for scenarios with `rules:`, a sentinel whose data tools answer
 * from the scenario's fixtures), and checks each against its expectations. Every tool call in the conversation is
 * put to `beforeTool`, so a call the workflow or the rules refuse is recorded as refused and its state does not
 * enter the trace. A scenario that cannot run (a workflow that does not load, an unreadable transcript) is an
 * `error` result, and the others still run. One monitor per workflow file, a fresh session per scenario.
 * @example
 * const report = await runScenarios(scenarios, { workflow: 'panoptes/workflow.yaml' });
 * if (report.summary.failed + report.summary.errors > 0) process.exitCode = 1;
 */
export async function runScenarios(scenarios: readonly Scenario[], { workflow: defaultWorkflow, onProgress, logger = SILENT, clock = systemClock, registry }: RunScenariosOptions = {}): Promise<Omit<ScenarioReport, 'problems'>> {
  const started = performance.now();
  const monitors = new Map<string, Promise<Monitor>>();
  const rulebases = new Map<string, Promise<Rulebase>>();
  const monitorFor = (file: string) => {
    let monitor = monitors.get(file);
    if (!monitor) monitors.set(file, (monitor = loadWorkflow(file, registry ? { registry } : {}).then((workflow) => createMonitor({ workflow, loops: true, logger, clock }))));
    return monitor;
  };
  const rulebaseFor = (file: string) => {
    let rulebase = rulebases.get(file);
    if (!rulebase) rulebases.set(file, (rulebase = loadRulebase(file)));
    return rulebase;
  };
  const results: ScenarioResult[] = [];
  for (const [index, scenario] of scenarios.entries()) {
    results.push(await runOne(scenario, `scenario-${index}`, { defaultWorkflow, monitorFor, rulebaseFor }));
    onProgress?.({ done: index + 1, total: scenarios.length });
  }
  const workflows = new Map<string, Workflow>();
  for (const [file, monitor] of monitors) {
    const loaded = await monitor.catch(() => undefined);
    if (loaded) workflows.set(file, loaded.workflow);
  }
  const loadedRules = new Map<string, Rulebase>();
  for (const [file, rulebase] of rulebases) {
    const loaded = await rulebase.catch(() => undefined);
    if (loaded) loadedRules.set(file, loaded);
  }
  const count = (status: ScenarioResult['status']) => results.filter((result) => result.status === status).length;
  return {
    results,
    coverage: coverageOf(results, workflows, loadedRules, scenarios, defaultWorkflow),
    summary: { scenarios: results.length, passed: count('passed'), failed: count('failed'), errors: count('error'), problems: 0, durationMs: performance.now() - started },
  };
}

interface Loaders {
  defaultWorkflow: string | undefined;
  monitorFor: (file: string) => Promise<Monitor>;
  rulebaseFor: (file: string) => Promise<Rulebase>;
}

async function runOne(scenario: Scenario, key: string, { defaultWorkflow, monitorFor, rulebaseFor }: Loaders): Promise<ScenarioResult> {
  const started = performance.now();
  const errored = (error: string): ScenarioResult => ({
    name: scenario.name,
    file: scenario.file,
    status: 'error',
    error,
    mismatches: [],
    durationMs: performance.now() - started,
    actual: { trace: [], finalState: '', verdicts: {}, violations: [], refused: [], loops: [], interventions: [], guarded: [], refusedBy: [] },
  });
  const workflowFile = scenario.workflow ?? defaultWorkflow;
  if (workflowFile === undefined) return errored('no workflow: add `workflow: path/to/workflow.yaml` to the scenario, or pass --workflow');
  let monitor: Monitor;
  let sentinel: Sentinel | undefined;
  let messages: ChatMessage[];
  try {
    monitor = await monitorFor(workflowFile);
  } catch (error) {
    // A file that is not there says so in one line that starts with its path.
    const unread = WorkflowValidationError.isInstance(error) && error.diagnostics.length === 1 && isReadFailure(error.diagnostics[0]!);
    return errored(unread ? `the workflow ${(error as Error).message}` : `the workflow ${workflowFile} does not load: ${(error as Error).message}`);
  }
  try {
    messages = await messagesOf(scenario);
  } catch (error) {
    return errored((error as Error).message);
  }
  if (scenario.rules) {
    try {
      sentinel = sentinelFor(await rulebaseFor(scenario.rules.file), scenario);
    } catch (error) {
      return errored(`the rules ${scenario.rules.file} do not load: ${(error as Error).message}`);
    }
  }

  const trace = [monitor.workflow.initialState];
  const loops: string[] = [];
  const interventions: string[] = [];
  const refused: string[] = [];
  const guarded = new Set<string>();
  const refusedBy = new Set<string>();
  const listeners = [
    monitor.on('state-change', ({ sessionId, to }) => sessionId === key && trace.push(to)),
    monitor.on('loop', ({ sessionId, report }) => sessionId === key && loops.push(report.kind)),
  ];
  const guard: ToolGuard | undefined = sentinel && (async (call) => {
    if (sentinel.isGuarded(call.name)) guarded.add(call.name);
    const result = await sentinel.check(call.name, call.args);
    return result.allowed ? { allowed: true } : { allowed: false, reason: result.text };
  });
  try {
    const soFar: ChatMessage[] = [];
    for (const message of messages) {
      if (message.role === 'assistant') {
        const before = await monitor.beforeModel(key, { messages: soFar });
        if (before.action === 'block') interventions.push(before.intervention.name);
        else interventions.push(...before.interventions.map((intervention) => intervention.name));
        await monitor.afterModel(key, { content: message.content, toolCalls: message.toolCalls ?? [] });
        for (const call of message.toolCalls ?? []) {
          const decision = await monitor.beforeTool(key, call, guard ? { guard } : undefined);
          if (decision.action === 'deny') {
            refused.push(call.name);
            for (const constraint of decision.constraints) refusedBy.add(constraint);
          }
        }
      }
      soFar.push(message);
    }
    const report = await monitor.endSession(key);
    const actual = {
      trace,
      finalState: report.state,
      verdicts: report.verdicts,
      violations: [...new Set(report.violations.map((violation) => violation.constraint))],
      refused,
      loops,
      interventions,
      guarded: [...guarded],
      refusedBy: [...refusedBy],
    };
    const mismatches = compareExpectations(scenario.expect, actual);
    return { name: scenario.name, file: scenario.file, status: mismatches.length === 0 ? 'passed' : 'failed', mismatches, durationMs: performance.now() - started, actual };
  } finally {
    for (const stop of listeners) stop();
  }
}

/** The scenario's conversation, inline or from its transcript file, in the core's messages. */
async function messagesOf(scenario: Scenario): Promise<ChatMessage[]> {
  if (scenario.conversation) {
    const { messages, errors } = convertMessages(scenario.conversation);
    if (errors.length > 0) throw new Error(`conversation: ${errors.join('; ')}`);
    return messages;
  }
  const { file, session } = scenario.transcript!;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`the transcript ${readFailureLine(readFailureDiagnostic(file, error))}`);
  }
  const { transcripts, problems } = parseTranscripts(text, { file });
  const wanted = session === undefined ? transcripts : transcripts.filter((transcript) => transcript.id === session);
  if (wanted.length === 1) return wanted[0]!.messages;
  if (problems.length > 0 && wanted.length === 0) throw new Error(`the transcript ${file} cannot be read: ${problems.map((problem) => problem.text).join('; ')}`);
  if (wanted.length === 0) throw new Error(`the transcript ${file} has no session '${session}'; sessions: ${transcripts.map((transcript) => transcript.id).slice(0, 12).join(', ')}`);
  throw new Error(`the transcript ${file} holds ${wanted.length} sessions: name one with \`transcript: { file, session }\``);
}

function sentinelFor(rulebase: Rulebase, scenario: Scenario): Sentinel {
  const rules = scenario.rules!;
  const clock: Clock = rules.now === undefined ? systemClock : { now: () => rules.now! };
  const facts = createFactStore({ clock, seed: { context: rules.context } });
  const tools = Object.fromEntries(Object.entries(rules.fixtures).map(([tool, fixtures]) => [tool, { execute: (args: Record<string, unknown>) => answer(tool, fixtures, args) }]));
  // Tools a fixture does not cover still need a handler when the rules read them: it says so when called.
  for (const tool of rulebase.dataByTool.keys()) {
    tools[tool] ??= { execute: () => Promise.reject(new Error(`no fixture for data tool '${tool}' in ${scenario.file}`)) };
  }
  const sentinel = createSentinel({ rulebase, facts, tools, clock, unguardedTools: 'allow' });
  for (const goal of rules.confirm) sentinel.confirm(goal);
  return sentinel;
}

function answer(tool: string, fixtures: readonly ToolFixture[], args: Record<string, unknown>): Promise<unknown> {
  const found = fixtures.find((fixture) => Object.entries(fixture.args ?? {}).every(([name, value]) => JSON.stringify(args[name]) === JSON.stringify(value)));
  return found ? Promise.resolve(found.result) : Promise.reject(new Error(`no fixture of '${tool}' matches ${JSON.stringify(args)}`));
}
