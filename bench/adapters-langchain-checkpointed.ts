/**
 * `createAgent` with a checkpointer, where a thread's messages accumulate from run to run (the adapters-langchain
 * suite runs without one, so its conversations never grow). Five agents over the same scripted model, each on
 * threads of its own, their runs interleaved in rotating order: without middleware; with a middleware whose hooks
 * only pass the call on (LangChain's own price for any middleware with `wrapModelCall` and `wrapToolCall`), and the
 * same with a state field (the price of a middleware with state); with `panoptesMiddleware` over a plain monitor
 * (sessions in the monitor's memory), and over a graph monitor (the session in the agent's state, checkpointed with
 * the messages). The tool-call conversation, on a new thread each run and late in a long thread (turns 21-30). A
 * thread's checkpoints are deleted when it ends (see adapters-langgraph.ts).
 */
import { HumanMessage, type AIMessage } from '@langchain/core/messages';
import { MemorySaver, ReducedValue, StateSchema } from '@langchain/langgraph';
import { createAgent, createMiddleware, type AgentMiddleware } from 'langchain';
import { createMonitor } from 'panoptes';
import { panoptesMiddleware } from 'panoptes/langchain';
import { createGraphMonitor } from 'panoptes/langgraph';
import { z } from 'zod';
import { summarize, timedRun, type BenchRow } from './harness.js';
import { conversations, scriptedModel, supportWorkflow, verifyIdentity } from './support-agent.js';

const SAMPLES = 400;
const WARMUP = 50;
const SYSTEM_PROMPT = 'You are a support agent.';
const quiet = { warn: () => {} };

/** A state field like the one `panoptesMiddleware` adds with a graph monitor. */
const stateSchema = new StateSchema({ note: new ReducedValue(z.string().nullable().default(null), { reducer: (current: string | null, next: string | null) => next ?? current }) });

const VARIANTS = {
  plain: (): AgentMiddleware[] => [],
  noop: (): AgentMiddleware[] => [createMiddleware({ name: 'NoopMiddleware', wrapModelCall: (request, handler) => handler(request), wrapToolCall: (request, handler) => handler(request) })],
  noopWithState: (): AgentMiddleware[] => [createMiddleware({ name: 'NoopStateMiddleware', stateSchema, wrapModelCall: (request, handler) => handler(request), wrapToolCall: (request, handler) => handler(request) })],
  memory: (): AgentMiddleware[] => [panoptesMiddleware({ monitor: createMonitor({ workflow: supportWorkflow, logger: quiet }) })],
  state: (): AgentMiddleware[] => [panoptesMiddleware({ monitor: createGraphMonitor({ workflow: supportWorkflow, logger: quiet }) })],
};
type Variant = keyof typeof VARIANTS;
const ORDERS: Variant[][] = [
  ['plain', 'noop', 'noopWithState', 'memory', 'state'],
  ['state', 'memory', 'noopWithState', 'noop', 'plain'],
  ['noop', 'state', 'plain', 'memory', 'noopWithState'],
  ['noopWithState', 'plain', 'state', 'noop', 'memory'],
  ['memory', 'noopWithState', 'noop', 'state', 'plain'],
];

/** Each variant's agent and checkpointer, and a runner that takes every variant through the same turn of its own thread. */
function setup(script: ReadonlyArray<() => AIMessage>, calls: number, { turns, measuredFrom }: { turns: number; measuredFrom: number }) {
  const agents = Object.fromEntries(
    (Object.keys(VARIANTS) as Variant[]).map((variant) => {
      const checkpointer = new MemorySaver();
      return [variant, { checkpointer, agent: createAgent({ model: scriptedModel(script, calls), tools: [verifyIdentity], systemPrompt: SYSTEM_PROMPT, middleware: VARIANTS[variant](), checkpointer }) }];
    }),
  ) as unknown as Record<Variant, { checkpointer: MemorySaver; agent: { invoke: (input: { messages: HumanMessage[] }, config: { configurable: { thread_id: string } }) => Promise<unknown> } }>;
  let pair = 0;
  let thread = 0;
  let turn = 0;
  const threadOf = (variant: Variant) => `${variant}-${thread}`;
  const step = async (timed: boolean) => {
    const order = ORDERS[pair++ % ORDERS.length]!;
    const costs = {} as Record<Variant, number>;
    for (const variant of order) {
      const run = () => agents[variant].agent.invoke({ messages: [new HumanMessage(`Please verify me, I am customer 42 (turn ${turn + 1}).`)] }, { configurable: { thread_id: threadOf(variant) } });
      if (timed) costs[variant] = (await timedRun(run)).cpuUs;
      else await run();
    }
    if (++turn === turns) {
      for (const variant of order) await agents[variant].checkpointer.deleteThread(threadOf(variant));
      [thread, turn] = [thread + 1, 0];
    }
    return costs;
  };
  return {
    async next(): Promise<Record<Variant, number>> {
      while (turn < measuredFrom) await step(false);
      return step(true);
    },
  };
}

export async function langchainCheckpointedBench(): Promise<BenchRow[]> {
  const { script, modelCalls } = conversations['tool call checked, then the answer'];
  const threads = [
    { name: 'a new thread each run', thread: { turns: 1, measuredFrom: 0 } },
    { name: 'turns 21-30 of a thread', thread: { turns: 30, measuredFrom: 20 } },
  ];
  const setups = threads.map(({ name, thread }) => {
    const runs = (SAMPLES + WARMUP) * (thread.turns / (thread.turns - thread.measuredFrom)) * modelCalls + 10;
    return { name, runner: setup(script, runs, thread) };
  });
  for (let i = 0; i < WARMUP; i++) for (const { runner } of setups) await runner.next();
  const costs = setups.map(() => [] as Array<Record<Variant, number>>);
  for (let i = 0; i < SAMPLES; i++) for (const [index, { runner }] of setups.entries()) costs[index]!.push(await runner.next());

  const rows: BenchRow[] = [];
  for (const [index, { name }] of setups.entries()) {
    const cost = costs[index]!;
    const perCall = (variant: Variant, against: Variant) => summarize(cost.map((sample) => (sample[variant] - sample[against]) / modelCalls));
    const p50 = (variant: Variant) => Math.round(summarize(cost.map((sample) => sample[variant])).p50Us);
    const machinery = Math.round(perCall('noop', 'plain').p50Us);
    for (const [variant, where, like] of [
      ['memory', 'sessions in the monitor', 'noop'],
      ['state', 'the session in agent state (graph monitor)', 'noopWithState'],
    ] as const) {
      const added = perCall(variant, 'plain');
      rows.push({
        suite: 'adapters-langchain-checkpointed',
        name: `added per model call, createAgent + MemorySaver, ${where}, tool call checked, then the answer, ${name}, CPU time`,
        samples: SAMPLES,
        ...added,
        extra: {
          'run without middleware, p50 CPU us': p50('plain'),
          "of which any middleware's (a do-nothing one), p50 us": machinery,
          ...(like === 'noopWithState' ? { "of which any middleware's with a state field (a do-nothing one), p50 us": Math.round(perCall('noopWithState', 'plain').p50Us) } : {}),
          'Panoptes beyond a do-nothing middleware of the same kind, p50 us': Math.round(perCall(variant, like).p50Us),
          'model calls per run': modelCalls,
        },
        target: '<= 200 us per model call',
        met: added.p50Us <= 200,
      });
    }
  }
  return rows;
}
