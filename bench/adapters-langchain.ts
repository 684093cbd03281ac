/**
 * The LangChain adapter's added time per model call (DESIGN.md section 13: <= 0.2 ms without embeddings): the same
 * `createAgent` run with a scripted model, without and with `panoptesMiddleware`, in pairs of runs made moments
 * apart. Two conversations: one model call answering in text, and a tool call (checked before it runs) then the
 * answer. CPU time decides the target: on a shared machine, wall time also counts the waits for a core. A third
 * agent with a middleware that does nothing shows how much of the added time is the host's own price for any
 * middleware with `wrapModelCall` and `wrapToolCall`. Last, Panoptes' own time inside each hook (the hook's time
 * less the time of the handler it calls) is timed directly, which the paired runs cannot separate from its indirect
 * cost: the caches it cools for the host's next steps, and its garbage.
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

export async function langchainAdapterBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const [name, { script, modelCalls }] of Object.entries(conversations)) {
    const runs = (SAMPLES + WARMUP + 10) * modelCalls;
    const systemPrompt = 'You are a support agent.';
    const agentWith = (middleware: AgentMiddleware[]) => createAgent({ model: scriptedModel(script, runs), tools: [verifyIdentity], systemPrompt, middleware });
    const monitor = createMonitor({ workflow: supportWorkflow, logger: { warn: () => {} } });
    // The host's own price for any middleware with these hooks, whatever it does: the share Panoptes cannot remove.
    const noop = createMiddleware({ name: 'NoopMiddleware', wrapModelCall: (request, handler) => handler(request), wrapToolCall: (request, handler) => handler(request) });
    const agents = { plain: agentWith([]), noop: agentWith([noop]), watched: agentWith([panoptesMiddleware({ monitor })]) };
    const input = () => ({ messages: [new HumanMessage('Please verify me, I am customer 42.')] });
    const run = (agent: keyof typeof agents, i: number) => () => agents[agent].invoke(input(), { configurable: { thread_id: `s${i % 50}` } });
    const order = [['plain', 'noop', 'watched'], ['watched', 'plain', 'noop'], ['noop', 'watched', 'plain']] as const;
    for (let i = 0; i < WARMUP; i++) for (const agent of order[0]) await run(agent, i)();
    // Samples in rotating order: each difference compares runs made moments apart, so drift in the machine's speed
    // cancels out; the medians of the differences are the added time.
    const cost = { plain: [] as Array<{ wallUs: number; cpuUs: number }>, noop: [] as Array<{ wallUs: number; cpuUs: number }>, watched: [] as Array<{ wallUs: number; cpuUs: number }> };
    for (let i = 0; i < SAMPLES; i++) for (const agent of order[i % order.length]!) cost[agent].push(await timedRun(run(agent, i)));
    const added = (against: 'plain' | 'noop', measure: 'wallUs' | 'cpuUs') => summarize(cost.watched.map((sample, i) => (sample[measure] - cost[against][i]![measure]) / modelCalls));
    const cpu = added('plain', 'cpuUs');
    // Own time inside the hooks, for Panoptes and for the middleware that does nothing (the timing's own floor).
    const own = { watched: { modelCall: [] as number[], toolCall: [] as number[] }, noop: { modelCall: [] as number[], toolCall: [] as number[] } };
    const timedAgents = { watched: agentWith([timedHooks(panoptesMiddleware({ monitor: createMonitor({ workflow: supportWorkflow, logger: { warn: () => {} } }) }), own.watched)]), noop: agentWith([timedHooks(noop, own.noop)]) };
    for (let i = 0; i < OWN_TIME_RUNS; i++) for (const agent of ['watched', 'noop'] as const) await timedAgents[agent].invoke(input(), { configurable: { thread_id: `s${i % 50}` } });
    const ownP50 = (samples: number[]) => Math.round(summarize(samples.slice(WARMUP)).p50Us);
    rows.push({
      suite: 'adapters-langchain',
      name: `added per model call, createAgent, ${name}, CPU time`,
      samples: SAMPLES,
      ...cpu,
      extra: {
        'run without Panoptes, p50 CPU us': Math.round(summarize(cost.plain.map((sample) => sample.cpuUs)).p50Us),
        "of which the host's middleware machinery, p50 us": Math.round(summarize(cost.noop.map((sample, i) => (sample.cpuUs - cost.plain[i]!.cpuUs) / modelCalls)).p50Us),
        'of which Panoptes, p50 us': Math.round(added('noop', 'cpuUs').p50Us),
        "Panoptes' own time in wrapModelCall, p50 us": ownP50(own.watched.modelCall),
        ...(modelCalls > 1 ? { "Panoptes' own time in wrapToolCall, p50 us": ownP50(own.watched.toolCall) } : {}),
        'same timing of the middleware that does nothing, p50 us': ownP50(own.noop.modelCall),
        'model calls per run': modelCalls,
      },
      target: '<= 200 us per model call',
      met: cpu.p50Us <= 200,
    });
    rows.push({
      suite: 'adapters-langchain',
      name: `added per model call, createAgent, ${name}, wall time`,
      samples: SAMPLES,
      ...added('plain', 'wallUs'),
      extra: { 'run without Panoptes, p50 wall us': Math.round(summarize(cost.plain.map((sample) => sample.wallUs)).p50Us), 'model calls per run': modelCalls },
    });
  }
  return rows;
}
