/**
 * The LangChain adapter's added time per model call (DESIGN.md section 13: <= 0.2 ms without embeddings): the same
 * `createAgent` run with a scripted model, without and with `panoptesMiddleware`, in pairs of runs made moments
 * apart. Two conversations: one model call answering in text, and a tool call (checked before it runs) then the
 * answer. CPU time decides the target: on a shared machine, wall time also counts the waits for a core. A third
 * agent with a middleware that does nothing shows how much of the added time is the host's own price for any
 * middleware with `wrapModelCall` and `wrapToolCall`. Last, Panoptes' own time inside each hook (the hook's time
 * less the time of the handler it calls) is timed directly, which the paired runs cannot separate from its indirect
 * cost: the caches it cools for the host's next steps, and its garbage.
 *
 * All of it twice: in a process's first runs, and after 40,000 model calls through Panoptes (a long-running server),
 * because V8 optimises each of Panoptes' per-call functions only after it has run many times. The conversations'
 * runs are interleaved, so each is measured at the same point of the process's life. Most runs continue one of 50
 * conversations (their sessions outlive the run); one agent starts a new conversation on every run, which also pays
 * for creating the session and entering its first state, as the LangGraph suite's runs do.
 */
import { HumanMessage } from '@langchain/core/messages';
import { createAgent, createMiddleware, type AgentMiddleware } from 'langchain';
import { panoptesMiddleware } from 'panoptes/langchain';
import { createMonitor } from 'panoptes';
import { summarize, timedRun, type BenchRow } from './harness.js';
import { conversations, scriptedModel, supportWorkflow, verifyIdentity } from './support-agent.js';

const SAMPLES = 1000;
const WARMUP = 100;
const OWN_TIME_RUNS = 600;
/** Model calls through Panoptes before the long-running rows (shared by the conversations): enough for V8 to have optimised its per-call functions. */
const STEADY_WARMUP_CALLS = 40_000;

/** The middleware with each hook timed exclusive of the handler it calls: Panoptes' own time on the agent's path. */
function timedHooks(middleware: AgentMiddleware, own: { modelCall: number[]; toolCall: number[] }): AgentMiddleware {
  const timeHook = <Request, Response>(hook: ((request: Request, handler: (request: Request) => Promise<Response>) => Promise<Response>) | undefined, samples: number[]) =>
    hook &&
    (async (request: Request, handler: (request: Request) => Promise<Response>) => {
      let inHandler = 0;
      const start = performance.now();
      const response = await hook(request, async (next) => {
        const handlerStart = performance.now();
        try {
          return await handler(next);
        } finally {
          inHandler += performance.now() - handlerStart;
        }
      });
      samples.push((performance.now() - start - inHandler) * 1000);
      return response;
    });
  // The hooks' request types are generic over the agent's state: the timing needs none of them.
  const hooks = middleware as any;
  return { ...middleware, wrapModelCall: timeHook(hooks.wrapModelCall, own.modelCall), wrapToolCall: timeHook(hooks.wrapToolCall, own.toolCall) } as AgentMiddleware;
}

type Agent = ReturnType<typeof createAgent>;
type Cost = { wallUs: number; cpuUs: number };

export async function langchainAdapterBench(): Promise<BenchRow[]> {
  const systemPrompt = 'You are a support agent.';
  const watching = () => panoptesMiddleware({ monitor: createMonitor({ workflow: supportWorkflow, logger: { warn: () => {} } }) });
  // The host's own price for any middleware with these hooks, whatever it does: the share Panoptes cannot remove.
  const noop = createMiddleware({ name: 'NoopMiddleware', wrapModelCall: (request, handler) => handler(request), wrapToolCall: (request, handler) => handler(request) });
  const input = () => ({ messages: [new HumanMessage('Please verify me, I am customer 42.')] });
  // Most agents continue 50 conversations, whose sessions the monitor keeps from run to run; the agents in `fresh`
  // start a new conversation on every run, so Panoptes also creates its session and enters its first state.
  const fresh = new Set<Agent>();
  let conversationsStarted = 0;
  const invoke = (agent: Agent, i: number) => agent.invoke(input(), { configurable: { thread_id: fresh.has(agent) ? `new-${conversationsStarted++}` : `s${i % 50}` } });
  const startingFresh = (agent: Agent) => (fresh.add(agent), agent);
  const setups = Object.entries(conversations).map(([name, { script, modelCalls }]) => ({
    name,
    modelCalls,
    agentWith: (middleware: AgentMiddleware[], runs: number): Agent => createAgent({ model: scriptedModel(script, (runs + 10) * modelCalls), tools: [verifyIdentity], systemPrompt, middleware }),
  }));
  type Setup = (typeof setups)[number];

  // Samples in rotating order, the conversations interleaved: each difference compares runs made moments apart, so
  // drift in the machine's speed cancels out, and every conversation is measured at the same point of the process's
  // life. The medians of the differences are the added time.
  const paired = async <Name extends string>(agents: Array<Record<Name, Agent>>, order: ReadonlyArray<readonly Name[]>) => {
    const costs = agents.map((byName) => Object.fromEntries(Object.keys(byName).map((agent) => [agent, [] as Cost[]])) as Record<Name, Cost[]>);
    for (let i = 0; i < WARMUP; i++) for (const byName of agents) for (const agent of order[0]!) await invoke(byName[agent], i);
    for (let i = 0; i < SAMPLES; i++) {
      for (const [index, byName] of agents.entries()) for (const agent of order[i % order.length]!) costs[index]![agent].push(await timedRun(() => invoke(byName[agent], i)));
    }
    return costs.map((cost, index) => ({
      perCall: (agent: Name, against: Name, measure: keyof Cost) => summarize(cost[agent].map((sample, i) => (sample[measure] - cost[against][i]![measure]) / setups[index]!.modelCalls)),
      p50: (agent: Name, measure: keyof Cost) => Math.round(summarize(cost[agent].map((sample) => sample[measure])).p50Us),
    }));
  };
  // Own time inside the hooks, for Panoptes and for the middleware that does nothing (the timing's own floor).
  const ownTime = async ({ agentWith, modelCalls }: Setup) => {
    const own = { watched: { modelCall: [] as number[], toolCall: [] as number[] }, noop: { modelCall: [] as number[], toolCall: [] as number[] } };
    const timed = { watched: agentWith([timedHooks(watching(), own.watched)], OWN_TIME_RUNS), noop: agentWith([timedHooks(noop, own.noop)], OWN_TIME_RUNS) };
    for (let i = 0; i < OWN_TIME_RUNS; i++) for (const agent of ['watched', 'noop'] as const) await invoke(timed[agent], i);
    const ownP50 = (samples: number[]) => Math.round(summarize(samples.slice(WARMUP)).p50Us);
    return {
      "Panoptes' own time in wrapModelCall, p50 us": ownP50(own.watched.modelCall),
      ...(modelCalls > 1 ? { "Panoptes' own time in wrapToolCall, p50 us": ownP50(own.watched.toolCall) } : {}),
      'same timing of the middleware that does nothing, p50 us': ownP50(own.noop.modelCall),
    };
  };

  const rows: BenchRow[] = [];
  // A process's first thousand runs of each conversation.
  const runs = SAMPLES + WARMUP;
  const early = await paired(
    setups.map(({ agentWith }) => ({ plain: agentWith([], runs), noop: agentWith([noop], runs), watched: agentWith([watching()], runs), fresh: startingFresh(agentWith([watching()], runs)) })),
    [['plain', 'noop', 'watched', 'fresh'], ['fresh', 'watched', 'plain', 'noop'], ['noop', 'fresh', 'watched', 'plain'], ['watched', 'plain', 'noop', 'fresh']],
  );
  const earlyOwnTimes = [];
  for (const setup of setups) earlyOwnTimes.push(await ownTime(setup));
  for (const [index, setup] of setups.entries()) {
    const measured = early[index]!;
    const cpu = measured.perCall('watched', 'plain', 'cpuUs');
    rows.push({
      suite: 'adapters-langchain',
      name: `added per model call, createAgent, ${setup.name}, CPU time, first runs of a process, continuing conversations`,
      samples: SAMPLES,
      ...cpu,
      extra: {
        'run without Panoptes, p50 CPU us': measured.p50('plain', 'cpuUs'),
        "of which the host's middleware machinery, p50 us": Math.round(measured.perCall('noop', 'plain', 'cpuUs').p50Us),
        'of which Panoptes, p50 us': Math.round(measured.perCall('watched', 'noop', 'cpuUs').p50Us),
        ...earlyOwnTimes[index],
        'model calls per run': setup.modelCalls,
      },
      target: '<= 200 us per model call',
      met: cpu.p50Us <= 200,
    });
    const freshCpu = measured.perCall('fresh', 'plain', 'cpuUs');
    rows.push({
      suite: 'adapters-langchain',
      name: `added per model call, createAgent, ${setup.name}, CPU time, first runs of a process, a new conversation each run`,
      samples: SAMPLES,
      ...freshCpu,
      extra: { 'run without Panoptes, p50 CPU us': measured.p50('plain', 'cpuUs'), 'model calls per run': setup.modelCalls },
      target: '<= 200 us per model call',
      met: freshCpu.p50Us <= 200,
    });
    rows.push({
      suite: 'adapters-langchain',
      name: `added per model call, createAgent, ${setup.name}, wall time, first runs of a process`,
      samples: SAMPLES,
      ...measured.perCall('watched', 'plain', 'wallUs'),
      extra: { 'run without Panoptes, p50 wall us': measured.p50('plain', 'wallUs'), 'model calls per run': setup.modelCalls },
    });
  }

  // A long-running server. V8 optimises a function once it has run enough, and Panoptes' functions run once or
  // twice per model call: in a process's first thousand runs most of them still run unoptimised. The same pairs
  // again, after STEADY_WARMUP_CALLS model calls through Panoptes.
  for (const { agentWith, modelCalls } of setups) {
    const warmRuns = STEADY_WARMUP_CALLS / setups.length / modelCalls;
    const warming = agentWith([watching()], warmRuns);
    for (let i = 0; i < warmRuns; i++) await invoke(warming, i);
  }
  const steady = await paired(setups.map(({ agentWith }) => ({ plain: agentWith([], runs), watched: agentWith([watching()], runs) })), [['plain', 'watched'], ['watched', 'plain']]);
  for (const [index, setup] of setups.entries()) {
    const measured = steady[index]!;
    const cpu = measured.perCall('watched', 'plain', 'cpuUs');
    rows.push({
      suite: 'adapters-langchain',
      name: `added per model call, createAgent, ${setup.name}, CPU time, after ${STEADY_WARMUP_CALLS.toLocaleString('en')} model calls`,
      samples: SAMPLES,
      ...cpu,
      extra: { 'run without Panoptes, p50 CPU us': measured.p50('plain', 'cpuUs'), ...(await ownTime(setup)), 'model calls per run': setup.modelCalls },
      target: '<= 200 us per model call',
      met: cpu.p50Us <= 200,
    });
  }
  return rows;
}
