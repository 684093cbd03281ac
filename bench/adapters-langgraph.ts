/**
 * The LangGraph adapter's added time per model call (DESIGN.md section 13: <= 0.2 ms without embeddings): the same
 * hand-built agent graph (model node, `ToolNode`, `toolsCondition`, a `MemorySaver`), without Panoptes and with
 * `wrapModelNode` + `GuardedToolNode`, in pairs of runs made moments apart. The graph state (and with Panoptes the
 * monitor's session in it) is checkpointed at every step, as a server would. Two conversations, as for LangChain, each
 * run on a new thread: one model call answering in text, and a tool call checked, then the answer; and the second
 * again, late in a long thread (turns 21-30), where the checkpoints hold a grown session.
 */
import { HumanMessage, SystemMessage, type AIMessage } from '@langchain/core/messages';
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { createGraphMonitor, GuardedToolNode, PanoptesAnnotation, wrapModelNode } from 'panoptes/langgraph';
import { summarize, timedRun, type BenchRow } from './harness.js';
import { conversations, scriptedModel, supportWorkflow, verifyIdentity } from './support-agent.js';

const SAMPLES = 1200;
const WARMUP = 100;
const SYSTEM_PROMPT = 'You are a support agent.';

const State = Annotation.Root({ ...MessagesAnnotation.spec, ...PanoptesAnnotation.spec });

/**
 * The agent loop over a scripted model that answers from the script in turn; with Panoptes or without. Without, it
 * is the graph a user would write: no session channel, the node itself sending the same system prompt.
 */
function agentGraph(script: ReadonlyArray<() => AIMessage>, calls: number, watched: boolean, checkpointer: MemorySaver) {
  const model = scriptedModel(script, calls);
  const compile = { checkpointer };
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

/** Turns of each thread in the long-thread rows, and the turn from which they are measured (0-based). */
const LONG_THREAD = { turns: 30, measuredFrom: 20 } as const;

type Cost = { wallUs: number; cpuUs: number };
type Variant = 'plain' | 'watched';

/**
 * One conversation's pairs of runs: each call of `next` runs the plain and the watched graph on the same turn of a
 * thread of their own (the order alternating), untimed turns first when a thread is to be measured late in its life.
 * A thread's checkpoints are deleted when it ends, as a server's database would hold them rather than its heap: a
 * `MemorySaver` keeping every thread of the run grew the heap by hundreds of MB, and the garbage collector's work
 * on it, counted in the process's CPU time, moved the medians of the long threads' differences by milliseconds.
 */
function pairs(script: ReadonlyArray<() => AIMessage>, calls: number, { turns, measuredFrom }: { turns: number; measuredFrom: number }) {
  const checkpointers = { plain: new MemorySaver(), watched: new MemorySaver() };
  const graphs = { plain: agentGraph(script, calls, false, checkpointers.plain), watched: agentGraph(script, calls, true, checkpointers.watched) };
  let pair = 0;
  let thread = 0;
  let turn = 0;
  const threadOf = (variant: Variant) => `${variant}-${thread}`;
  const run = (variant: Variant) => () => graphs[variant].invoke({ messages: [new HumanMessage(`Please verify me, I am customer 42 (turn ${turn + 1}).`)] }, { configurable: { thread_id: threadOf(variant) } });
  const step = async <T>(measure: (run: () => Promise<unknown>) => Promise<T>) => {
    const order = pair++ % 2 ? (['watched', 'plain'] as const) : (['plain', 'watched'] as const);
    const costs = {} as Record<Variant, T>;
    for (const variant of order) costs[variant] = await measure(run(variant));
    if (++turn === turns) {
      for (const variant of order) await checkpointers[variant].deleteThread(threadOf(variant));
      [thread, turn] = [thread + 1, 0];
    }
    return costs;
  };
  return {
    async next(): Promise<Record<Variant, Cost>> {
      while (turn < measuredFrom) await step((untimed) => untimed());
      return step(timedRun);
    },
  };
}

export async function langgraphAdapterBench(): Promise<BenchRow[]> {
  const newThreads = Object.entries(conversations).map(([name, { script, modelCalls }]) => ({ name: `${name}, a new thread each run`, script, modelCalls, thread: { turns: 1, measuredFrom: 0 } }));
  // A thread's later turns: the session in graph state has grown (steps, trace, deviations), and every checkpoint
  // holds it again, as the messages.
  const { script, modelCalls } = conversations['tool call checked, then the answer'];
  const longThread = { name: `tool call checked, then the answer, turns ${LONG_THREAD.measuredFrom + 1}-${LONG_THREAD.turns} of a thread`, script, modelCalls, thread: LONG_THREAD };
  const setups = [...newThreads, longThread].map(({ name, script, modelCalls, thread }) => {
    const runs = (SAMPLES + WARMUP) * (thread.turns / (thread.turns - thread.measuredFrom)) * modelCalls + 10;
    return { name, modelCalls, pairs: pairs(script, runs, thread) };
  });
  for (let i = 0; i < WARMUP; i++) for (const setup of setups) await setup.pairs.next();
  // The conversations interleaved: each difference compares runs made moments apart (see adapters-langchain.ts), and
  // every conversation is measured at the same point of the process's life.
  const costs = setups.map(() => [] as Array<Record<Variant, Cost>>);
  for (let i = 0; i < SAMPLES; i++) for (const [index, setup] of setups.entries()) costs[index]!.push(await setup.pairs.next());
  const rows: BenchRow[] = [];
  for (const [index, { name, modelCalls }] of setups.entries()) {
    const cost = costs[index]!;
    const added = (measure: keyof Cost) => summarize(cost.map((sample) => (sample.watched[measure] - sample.plain[measure]) / modelCalls));
    const plain = (measure: keyof Cost) => Math.round(summarize(cost.map((sample) => sample.plain[measure])).p50Us);
    const cpu = added('cpuUs');
    rows.push({
      suite: 'adapters-langgraph',
      name: `added per model call, StateGraph + MemorySaver, ${name}, CPU time`,
      samples: SAMPLES,
      ...cpu,
      extra: { 'run without Panoptes, p50 CPU us': plain('cpuUs'), 'model calls per run': modelCalls },
      target: '<= 200 us per model call',
      met: cpu.p50Us <= 200,
    });
    rows.push({
      suite: 'adapters-langgraph',
      name: `added per model call, StateGraph + MemorySaver, ${name}, wall time`,
      samples: SAMPLES,
      ...added('wallUs'),
      extra: { 'run without Panoptes, p50 wall us': plain('wallUs'), 'model calls per run': modelCalls },
    });
  }
  return rows;
}
