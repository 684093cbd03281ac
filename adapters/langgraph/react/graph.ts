import { SystemMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import { Command, END, isGraphBubbleUp, isNodeTimeoutError, START, StateGraph, type AnnotationRoot, type LangGraphRunnableConfig, type NodeError, type StateDefinition } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { isTransientModelError, systemClock, warnSafely } from '../../../src/index.js';
import { createFailureLog } from '../../langchain/fail-open.js';
import { wrapModelNode } from '../model-node.js';
import { GuardedToolNode } from '../tool-node.js';
import { assertFinishSchema, FINISH_TOOL, finishDefinition, finishOutcome, finishTool, type FinishSchema } from './finish-tool.js';
import { ended, reactModelNode } from './model-call.js';
import { assertReactOptions, DEFAULT_MAX_FINISH_REPAIRS, DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_TOKENS, type ReactGraphOptions } from './options.js';
import { routeAfterModel, routeAfterTools, settleNode, type RouteLimits } from './settle.js';
import { ReactAnnotation, type ReactControllerState, type ReactGraphState } from './state.js';
import { reactTool } from './tool-calls.js';

/** How a graph built on the ReAct loop extends it: more state, a node before the model, a node after the end. */
export interface ReactGraphExtension {
  state?: AnnotationRoot<StateDefinition>;
  /** Runs first (from START), then the model. */
  prepare?: (state: any, config: any) => unknown;
  /** Runs last, after `settle`. */
  conclude?: (state: any, config: any) => unknown;
}

/**
 * Builds a ReAct controller as a LangGraph `StateGraph`, returned uncompiled: compile it with your checkpointer,
 * cache and store. The model reasons with the tools until it calls `finish`, whose arguments your zod schema
 * validates; the run's state then holds `react.status` (`finished`, or `uncertain` with a `reasonCode`) and
 * `react.output` (the parsed arguments).
 *
 * Nodes: `model` (any chat model, tools bound; LangGraph's `retryPolicy` retries transient errors, its `timeout`
 * bounds an attempt, its `errorHandler` hands a dead model to `fallback`), `tools` (a `ToolNode`, a
 * `GuardedToolNode` with `monitor` or `sentinel`; the calls of one step run concurrently; an identical call within
 * one evaluation is answered from the thread's earlier observation) and `settle` (records why the run ended). The
 * model node routes the run itself; with neither `monitor` nor `sentinel`, it records a lone valid `finish` too. A
 * budget (iterations, tokens, cost, time) ends the run `uncertain`, never with an exception; an invalid `finish`
 * goes back to the model with the schema's issues, at most `maxFinishRepairs` times. An `interrupt()` in a tool
 * pauses the run; resume it with a checkpointer (`new Command({ resume })`).
 * @throws {InvalidOptionError} at construction: no model with `bindTools`, no tools, a `finishSchema` that is not a
 * zod object schema, a budget that is not a positive number.
 * @example
 * const graph = createReactGraph({ model, tools: [searchPolicy], finishSchema: z.object({ answer: z.string() }) }).compile();
 * const { react } = await graph.invoke({ messages: [new HumanMessage('Is an MRI covered?')] });
 * react.status === 'finished' ? react.output : react.reasonCode
 */
export function createReactGraph<Output = unknown>(options: ReactGraphOptions<Output>) {
  return buildReactGraph(options, {}) as unknown as StateGraph<typeof ReactAnnotation.spec, ReactGraphState, Partial<ReactGraphState>, 'model' | 'tools' | 'settle'>;
}

/** The graph of {@link createReactGraph}, extended (the verification graph adds its input, tools and result). */
export function buildReactGraph<Output>(options: ReactGraphOptions<Output>, extension: ReactGraphExtension): StateGraph<any, any, any, any> {
  assertReactOptions(options as ReactGraphOptions<unknown>);
  assertFinishSchema(options.finishSchema);
  const {
    model,
    tools,
    finishSchema,
    finishDescription = 'Give your final answer.',
    systemPrompt,
    maxIterations = DEFAULT_MAX_ITERATIONS,
    maxTokens = DEFAULT_MAX_TOKENS,
    onTokenBudget = 'stop',
    maxCostUsd,
    prices = {},
    timeoutMs,
    modelTimeoutMs,
    toolTimeoutMs = timeoutMs,
    retry = {},
    sleep = defaultSleep,
    maxFinishRepairs = DEFAULT_MAX_FINISH_REPAIRS,
    fallback,
    cacheToolCalls = true,
    monitor,
    loops,
    sentinel,
    sessionId,
    clock = systemClock,
    logger = console,
  } = options;
  const { maxAttempts = 3, initialIntervalMs = 1000, backoffFactor = 2, maxIntervalMs = 8000 } = retry;
  const failed = createFailureLog(logger, isGraphBubbleUp);
  const warned = new Set<string>();
  const warn = (message: string) => {
    if (warned.has(message) || warned.size > 100) return;
    warned.add(message);
    warnSafely(logger, message);
  };
  const offered = [...tools, finishDefinition(finishSchema as FinishSchema, finishDescription)];
  const bind = (chatModel: typeof model) => chatModel.bindTools!(offered as never) as unknown as Runnable<BaseMessage[], AIMessage>;
  const fallbackModel = fallback && typeof fallback !== 'function' ? bind(fallback) : undefined;
  // Where a run goes once it has ended: the extension's last node, else the end.
  const exit = extension.conclude ? 'conclude' : END;
  const limits: RouteLimits = { maxIterations, maxFinishRepairs, clock, ...(timeoutMs === undefined ? {} : { timeoutMs }) };

  const inner = reactModelNode({
    model: bind(model),
    ...(fallbackModel ? { fallbackModel } : {}),
    // With a monitor, wrapModelNode puts the system prompt first, where the workflow's guidance is added to it.
    ...(systemPrompt !== undefined && !monitor ? { system: new SystemMessage(systemPrompt) } : {}),
    toolNames: [...tools.map((candidate) => candidate.name), 'finish'],
    maxIterations,
    maxTokens,
    onTokenBudget,
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    prices,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    backoffMs: (retryNumber) => Math.min(maxIntervalMs, initialIntervalMs * backoffFactor ** (retryNumber - 1)),
    sleep,
    ...(loops ? { loops } : {}),
    ...(sessionId === undefined ? {} : { sessionId }),
    clock,
    failed,
    warn,
  });
  const callModel = monitor ? wrapModelNode(inner as never, { monitor, logger, ...(systemPrompt === undefined ? {} : { systemPrompt }), ...(sessionId === undefined ? {} : { sessionId }) }) : inner;
  const routeModel = routeAfterModel(exit);
  // LangGraph's machinery, not Panoptes', is most of a run's CPU, and it grows with the runnables each step invokes
  // (bench/README.md, `react`). So the model node routes the run itself with a Command (an edge after it costs two
  // runnables more per step); without a monitor or sentinel to check it, it records a valid `finish` that is the
  // answer's only call, as the finish tool would, sparing a tools step; and a run that ends here is concluded here.
  const finishesHere = !monitor && !sentinel;
  const endHere = async (state: ReactGraphState, update: ModelNodeUpdate, config: LangGraphRunnableConfig) => {
    if (!extension.conclude) return new Command({ goto: END, update });
    const concluded = (await extension.conclude({ ...state, ...afterUpdate(state, update) }, config)) as Record<string, unknown>;
    return new Command({ goto: END, update: { ...update, ...concluded } });
  };
  const modelNode = async (state: ReactGraphState, config: LangGraphRunnableConfig) => {
    const update = (await (callModel as (state: ReactGraphState, config: LangGraphRunnableConfig) => Promise<ModelNodeUpdate>)(state, config)) ?? {};
    const next = afterUpdate(state, update);
    const route = routeModel(next);
    if (route === exit) return endHere(state, update, config);
    if (finishesHere && route === 'tools') {
      const calls = (next.messages.at(-1) as AIMessage).tool_calls!;
      const outcome = calls.length === 1 && calls[0]!.name === FINISH_TOOL ? finishOutcome(finishSchema as FinishSchema, calls[0]!.args, calls[0]!.id ?? '', clock) : undefined;
      if (outcome?.react) return endHere(state, { ...update, messages: [...(update.messages ?? []), outcome.message], react: { ...update.react, ...outcome.react } }, config);
    }
    return new Command({ goto: route, update });
  };
  const runnableTools = [...tools.map((original) => reactTool(original, { clock, cache: cacheToolCalls })), finishTool(finishSchema as FinishSchema, clock)];
  const toolNode = monitor || sentinel ? new GuardedToolNode(runnableTools, { logger, ...(monitor ? { monitor } : {}), ...(sentinel ? { sentinel } : {}), ...(sessionId === undefined ? {} : { sessionId }) }) : new ToolNode(runnableTools);

  /** After the retry policy gave up, or at once for a permanent error: the fallback, else an honest `llm_error`. */
  const onModelError = async (state: ReactGraphState, nodeError: NodeError) => {
    const error = (nodeError as { error?: unknown }).error ?? nodeError;
    const attempts = state.react.modelAttempts + (isTransientModelError(error) ? maxAttempts : 1);
    const detail = describeError(error);
    if (!state.react.fallbackUsed && fallbackModel) return new Command({ goto: 'model', update: { react: { fallbackUsed: true, modelAttempts: attempts, detail } } });
    if (!state.react.fallbackUsed && typeof fallback === 'function') {
      try {
        const output = await fallback({ error, messages: state.messages });
        const parsed = (finishSchema as FinishSchema).safeParse(output);
        if (parsed.success) return new Command({ goto: exit, update: { react: { status: 'finished', output: parsed.data, fallbackUsed: true, modelAttempts: attempts, endedAt: clock.now() } satisfies Partial<ReactControllerState> } });
        return new Command({ goto: exit, update: { react: { ...ended({ modelAttempts: attempts, fallbackUsed: true }, 'llm_error', `${detail}; the fallback's result does not match finishSchema`, clock) } } });
      } catch (fallbackError) {
        if (isGraphBubbleUp(fallbackError)) throw fallbackError;
        return new Command({ goto: exit, update: { react: ended({ modelAttempts: attempts, fallbackUsed: true }, 'llm_error', `${detail}; the fallback failed too: ${describeError(fallbackError)}`, clock) } });
      }
    }
    return new Command({ goto: exit, update: { react: ended({ modelAttempts: attempts }, 'llm_error', detail, clock) } });
  };
  const onToolsError = (_state: ReactGraphState, nodeError: NodeError) => {
    const error = (nodeError as { error?: unknown }).error ?? nodeError;
    const reason = isNodeTimeoutError(error) ? ('timeout' as const) : ('tool_error' as const);
    return new Command({ goto: exit, update: { react: ended({}, reason, describeError(error), clock) } });
  };

  const graph = new StateGraph((extension.state ?? ReactAnnotation) as typeof ReactAnnotation) as unknown as StateGraph<any, any, any, string>;
  graph.addNode('model', modelNode as never, {
    retryPolicy: { maxAttempts, initialInterval: 0, backoffFactor: 1, jitter: false, logWarning: false, retryOn: isTransientModelError },
    errorHandler: onModelError as never,
    ends: ['tools', 'model', 'settle', exit, END],
    ...(modelTimeoutMs === undefined ? {} : { timeout: modelTimeoutMs }),
  });
  graph.addNode('tools', toolNode as never, { errorHandler: onToolsError as never, ends: [exit], ...(toolTimeoutMs === undefined ? {} : { timeout: toolTimeoutMs }) });
  graph.addNode('settle', settleNode(limits) as never);
  if (extension.prepare) {
    // prepare says where to go itself (a Command), which costs LangGraph less than a conditional edge after it
    const prepare = extension.prepare;
    graph.addNode('prepare', (async (state: any, config: any) => {
      const update = (await prepare(state, config)) as { react?: Partial<ReactControllerState> } | undefined;
      return new Command({ goto: update?.react?.status && update.react.status !== 'running' ? exit : 'model', update: update ?? {} });
    }) as never, { ends: ['model', exit] });
    graph.addEdge(START, 'prepare');
  } else graph.addEdge(START, 'model');
  graph.addConditionalEdges('tools', routeAfterTools(limits, exit) as never, ['model', 'settle', exit]);
  if (extension.conclude) {
    graph.addNode('conclude', extension.conclude as never);
    graph.addEdge('settle', 'conclude');
    graph.addEdge('conclude', END);
  } else graph.addEdge('settle', END);
  return graph;
}

/**
 * A recursion limit that lets a run use its whole iteration budget (a model and a tools step per iteration, and
 * the nodes around them): LangGraph's own limit is then only a backstop.
 */
export function reactRecursionLimit(maxIterations = DEFAULT_MAX_ITERATIONS): number {
  return 2 * maxIterations + 6;
}

type ModelNodeUpdate = { messages?: BaseMessage[]; react?: Partial<ReactControllerState> };

/** What the routers read after the model node's update: its new messages appended, its controller fields merged. */
function afterUpdate(state: ReactGraphState, update: ModelNodeUpdate): Pick<ReactGraphState, 'messages' | 'react'> {
  return { messages: update.messages?.length ? [...state.messages, ...update.messages] : state.messages, react: update.react ? { ...state.react, ...update.react } : state.react };
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const status = (error as { status?: unknown }).status;
    return `${error.name}${status === undefined ? '' : ` (${String(status)})`}: ${error.message}`;
  }
  return String(error);
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
