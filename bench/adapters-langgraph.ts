/**
 * The LangGraph adapter's added time per model call (DESIGN.md section 13: <= 0.2 ms without embeddings): the same
 * hand-built agent graph (model node, `ToolNode`, `toolsCondition`, a `MemorySaver`), without Panoptes and with
 * `wrapModelNode` + `GuardedToolNode`, in pairs of runs made moments apart. Each run is a new thread, so the graph
 * state (and with Panoptes the monitor's session in it) is checkpointed from the first step, as a server would.
 * Two conversations, as for LangChain: one model call answering in text, and a tool call checked, then the answer.
 */
import { HumanMessage, SystemMessage, type AIMessage } from '@langchain/core/messages';
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { createGraphMonitor, GuardedToolNode, PanoptesAnnotation, wrapModelNode } from 'panoptes/langgraph';
import { summarize, timedRun, type BenchRow } from './harness.js';
import { conversations, scriptedModel, supportWorkflow, verifyIdentity } from './support-agent.js';

const SAMPLES = 600;
const WARMUP = 100;
const SYSTEM_PROMPT = 'You are a support agent.';

const State = Annotation.Root({ ...MessagesAnnotation.spec, ...PanoptesAnnotation.spec });

/**
 * The agent loop over a scripted model that answers from the script in turn; with Panoptes or without. Without, it
 * is the graph a user would write: no session channel, the node itself sending the same system prompt.
 */
function agentGraph(script: ReadonlyArray<() => AIMessage>, calls: number, watched: boolean) {
  const model = scriptedModel(script, calls);
  const compile = { checkpointer: new MemorySaver() };
  if (!watched) {
    return new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state) => ({ messages: [await model.invoke([new SystemMessage(SYSTEM_PROMPT), ...state.messages])] }))
      .addNode('tools', new ToolNode([verifyIdentity]))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', toolsCondition, ['tools', END])
      .addEdge('tools', 'agent')
      .compile(compile);
  }
  const monitor = createGraphMonitor({ workflow: supportWorkflow, logger: { warn: () => {} } });
  const callModel = async (state: typeof State.State) => ({ messages: [await model.invoke(state.messages)] });
  return new StateGraph(State)
    .addNode('agent', wrapModelNode(callModel, { monitor, systemPrompt: SYSTEM_PROMPT }))
    .addNode('tools', new GuardedToolNode([verifyIdentity], { monitor }))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', END])
    .addEdge('tools', 'agent')
    .compile(compile);
}

export async function langgraphAdapterBench(): Promise<BenchRow[]> {
  const setups = Object.entries(conversations).map(([name, { script, modelCalls }]) => {
    const runs = (SAMPLES + WARMUP + 10) * modelCalls;
    return { name, modelCalls, graphs: { plain: agentGraph(script, runs, false), watched: agentGraph(script, runs, true) } };
  });
  const run = (graph: ReturnType<typeof agentGraph>, thread: string) => () => graph.invoke({ messages: [new HumanMessage('Please verify me, I am customer 42.')] }, { configurable: { thread_id: thread } });
  const variants = ['plain', 'watched'] as const;
  for (let i = 0; i < WARMUP; i++) for (const { graphs } of setups) for (const variant of variants) await run(graphs[variant], `${variant}-warm-${i}`)();
  // Pairs in alternating order, the conversations interleaved: each difference compares runs made moments apart (see
  // adapters-langchain.ts), and both conversations are measured at the same point of the process's life.
  const costs = setups.map(() => ({ plain: [] as Array<{ wallUs: number; cpuUs: number }>, watched: [] as Array<{ wallUs: number; cpuUs: number }> }));
  for (let i = 0; i < SAMPLES; i++) {
    for (const [index, { graphs }] of setups.entries()) {
      for (const variant of i % 2 ? ([...variants].reverse() as Array<(typeof variants)[number]>) : variants) costs[index]![variant].push(await timedRun(run(graphs[variant], `${variant}-${i}`)));
    }
  }
  const rows: BenchRow[] = [];
  for (const [index, { name, modelCalls }] of setups.entries()) {
    const cost = costs[index]!;
    const added = (measure: 'wallUs' | 'cpuUs') => summarize(cost.watched.map((sample, i) => (sample[measure] - cost.plain[i]![measure]) / modelCalls));
    const cpu = added('cpuUs');
    rows.push({
      suite: 'adapters-langgraph',
      name: `added per model call, StateGraph + MemorySaver, ${name}, CPU time`,
      samples: SAMPLES,
      ...cpu,
      extra: { 'run without Panoptes, p50 CPU us': Math.round(summarize(cost.plain.map((sample) => sample.cpuUs)).p50Us), 'model calls per run': modelCalls },
      target: '<= 200 us per model call',
      met: cpu.p50Us <= 200,
    });
    rows.push({
      suite: 'adapters-langgraph',
      name: `added per model call, StateGraph + MemorySaver, ${name}, wall time`,
      samples: SAMPLES,
      ...added('wallUs'),
      extra: { 'run without Panoptes, p50 wall us': Math.round(summarize(cost.plain.map((sample) => sample.wallUs)).p50Us), 'model calls per run': modelCalls },
    });
  }
  return rows;
}
