import { SystemMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import { Command, END, isGraphBubbleUp, START, type AnnotationRoot, type LangGraphRunnableConfig, type StateDefinition, type StateGraph, type StateType, type UpdateType } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { createReactTelemetry, isTransientModelError, SPAN, systemClock, warnSafely, type ReactTelemetry } from '../../../src/index.js';
import { createFailureLog } from '../../langchain/fail-open.js';
import { wrapModelNode } from '../model-node.js';
import { GuardedToolNode } from '../tool-node.js';
import { ReactStateGraph, type ReactRuntime } from './compiled-graph.js';
import { beginEvaluation, inputAfterEvaluation, inputPending, stateAfterStart, updateAfterStart, withId, type EvaluationStart, type ThreadHistory } from './evaluation.js';
import { assertFinishSchema, FINISH_TOOL, finishDefinition, finishOutcome, finishTool, type FinishSchema } from './finish-tool.js';
import { reactModelNode } from './model-call.js';
import { modelErrorHandler, toolsErrorHandler } from './model-errors.js';
import { assertReactOptions, DEFAULT_MAX_FINISH_REPAIRS, DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_TOKENS, type ReactGraphOptions } from './options.js';
import { noteRun, threadAttributes } from './run-trace.js';
import { routeAfterModel, routeAfterTools, settleNode, type RouteLimits } from './settle.js';
import { ReactAnnotation, ReactInputAnnotation, ReactOutputAnnotation, type ReactControllerState, type ReactGraphState, type ReactOutputDefinition, type ReactStateDefinition } from './state.js';
import { reactTool } from './tool-calls.js';

/** How a graph built on the ReAct loop extends it: more state, its input and output, a node before the model, a node after the end. */
export interface ReactGraphExtension {
  state?: AnnotationRoot<StateDefinition>;
  /** The graph's input schema (LangGraph's `input`): what `invoke` takes. */
  input: AnnotationRoot<any>;
  /** The graph's output schema (LangGraph's `output`): what `invoke` returns. */
  output: AnnotationRoot<any>;
  /** Runs first (from START) on every new input, so it begins each evaluation; then the model. */
  prepare?: (state: any, config: any) => unknown;
  /** Runs last, after `settle`. */
  conclude?: (state: any, config: any) => unknown;
  /** Validates what a fallback function returns. @default the finish schema */
  fallbackSchema?: FinishSchema;
  /** The compiled graph's name, and how its invocations are traced. */
  runtime: Pick<ReactRuntime, 'name' | 'spanName' | 'verification' | 'attributes' | 'resultOf'>;
  /** The telemetry the extension made from the same options, for its own nodes. @default made from the options */
  telemetry?: ReactTelemetry;
}

/** The uncompiled graph of {@link createReactGraph}, typed: `react.output` is what the finish schema parses. */
export type ReactGraphBuilder<Output = unknown> = StateGraph<
  ReactStateDefinition<Output>,
  StateType<ReactStateDefinition<Output>>,
  UpdateType<ReactStateDefinition<Output>>,
  'model' | 'tools' | 'settle',
  typeof ReactInputAnnotation.spec,
  ReactOutputDefinition<Output>
>;

/**
 * Builds a ReAct controller as a LangGraph `StateGraph`, returned uncompiled: compile it with your checkpointer,
 * cache and store. The model reasons with the tools until it calls `finish`, whose arguments your zod schema
 * validates; the run's state then holds `react.status` (`finished`, or `uncertain` with a `reasonCode`) and
 * `react.output` (the parsed arguments, typed from the schema).
 *
 * Nodes: `model` (any chat model, tools bound; LangGraph's `retryPolicy` retries transient errors, its `timeout`
 * bounds an attempt, its `errorHandler` hands a dead model to `fallback`), `tools` (a `ToolNode`, a
 * `GuardedToolNode` with `monitor` or `sentinel`; the calls of one step run concurrently; an identical call within
 * one evaluation is answered from the thread's earlier observation) and `settle` (records why the run ended). The
 * model node routes the run itself; with neither `monitor` nor `sentinel`, it records a lone valid `finish` too. A
 * budget (iterations, tokens, cost, time) ends the run `uncertain`, never with an exception, whatever
 * `recursionLimit` the run is given; an invalid `finish` goes back to the model with the schema's issues, at most
 * `maxFinishRepairs` times. A new input on a thread whose evaluation ended begins a new one (`history`). An
 * `interrupt()` in a tool pauses the run; resume it with a checkpointer (`new Command({ resume })`). The input is
 * `{ messages }`, the output `{ messages, react }`.
 * @throws {InvalidOptionError} at construction: no model with `bindTools`, no tools, a `finishSchema` that is not a
 * zod object schema, a budget that is not a positive number.
 * @example
 * const graph = createReactGraph({ model, tools: [searchPolicy], finishSchema: z.object({ answer: z.string() }) }).compile();
 * const { react } = await graph.invoke({ messages: [new HumanMessage('Is an MRI covered?')] });
 * react.status === 'finished' ? react.output : react.reasonCode
 */
export function createReactGraph<Output = unknown>(options: ReactGraphOptions<Output>): ReactGraphBuilder<Output> {
  return buildReactGraph(options, {
    input: ReactInputAnnotation,
    output: ReactOutputAnnotation,
    runtime: { name: 'panoptes_react', spanName: SPAN.reactRun, verification: false, attributes: (_input, config) => threadAttributes(config) },
  }) as unknown as ReactGraphBuilder<Output>;
}

/** The graph of {@link createReactGraph}, extended (the verification graph adds its input, tools and result). */
export function buildReactGraph<Output>(options: ReactGraphOptions<Output>, extension: ReactGraphExtension): ReactStateGraph {
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
    history = 'reset',
    monitor,
    loops,
    sentinel,
    sessionId,
    clock = systemClock,
    logger = console,
  } = options;
  const { maxAttempts = 4, initialIntervalMs = 1000, backoffFactor = 2, maxIntervalMs = 8000, jitter = true, retryOn = isTransientModelError } = retry;
  const failed = createFailureLog(logger, isGraphBubbleUp);
  const warned = new Set<string>();
  const warn = (message: string) => {
    if (warned.has(message) || warned.size > 100) return;
    warned.add(message);
    warnSafely(logger, message);
  };
  const telemetry = extension.telemetry ?? createReactTelemetry(options);
  const offered = [...tools, finishDefinition(finishSchema as FinishSchema, finishDescription)];
  const bind = (chatModel: typeof model) => chatModel.bindTools!(offered as never) as unknown as Runnable<BaseMessage[], AIMessage>;
  const fallbackModel = fallback && typeof fallback !== 'function' ? bind(fallback) : undefined;
  // Where a run goes once it has ended: the extension's last node, else the end.
  const exit = extension.conclude ? 'conclude' : END;
  const limits: RouteLimits = { maxIterations, maxFinishRepairs, clock, ...(timeoutMs === undefined ? {} : { timeoutMs }) };
  // Without a `prepare` node, a new input on a thread whose evaluation ended (or paused) first reaches the model
  // node, which begins the new evaluation there (no extra step per run).
  const begin = (state: ReactGraphState): EvaluationStart | undefined =>
    extension.prepare || (state.react.status === 'running' && !inputPending(state.messages, state.react)) ? undefined : beginEvaluation({ ...inputAfterEvaluation(state.messages, state.react), added: false, react: state.react, panoptes: state.panoptes }, history as ThreadHistory);

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
    backoffMs: (retryNumber) => {
      const wait = Math.min(maxIntervalMs, initialIntervalMs * backoffFactor ** (retryNumber - 1));
      return jitter ? wait * (1 + Math.random() / 4) : wait;
    },
    sleep,
    ...(loops ? { loops } : {}),
    ...(sessionId === undefined ? {} : { sessionId }),
    clock,
    failed,
    warn,
    telemetry,
  });
  const callModel = monitor ? wrapModelNode(inner as never, { monitor, logger, ...(systemPrompt === undefined ? {} : { systemPrompt }), ...(sessionId === undefined ? {} : { sessionId }) }) : inner;
  const routeModel = routeAfterModel(exit);
  // LangGraph's machinery, not Panoptes', is most of a run's CPU, and it grows with the runnables each step invokes
  // (bench/README.md, `react`). So the model node routes the run itself with a Command (an edge after it costs two
  // runnables more per step); without a monitor or sentinel to check it, it records a valid `finish` that is the
  // answer's only call, as the finish tool would, sparing a tools step; and a run that ends here is concluded here.
  const finishesHere = !monitor && !sentinel;
  const modelNode = async (given: ReactGraphState, config: LangGraphRunnableConfig) => {
    const start = begin(given);
    const state = start ? stateAfterStart(given, start) : given;
    let update = ((await (callModel as (state: ReactGraphState, config: LangGraphRunnableConfig) => Promise<ModelNodeUpdate>)(state, config)) ?? {}) as ModelNodeUpdate;
    let route = routeModel(afterUpdate(state, update));
    if (finishesHere && route === 'tools') {
      const calls = (update.messages?.findLast((message) => message.getType() === 'ai') as AIMessage | undefined)?.tool_calls ?? [];
      const outcome = calls.length === 1 && calls[0]!.name === FINISH_TOOL ? finishOutcome(finishSchema as FinishSchema, calls[0]!.args, calls[0]!.id ?? '', clock) : undefined;
      if (outcome?.react) {
        update = { ...update, messages: [...(update.messages ?? []), outcome.message], react: { ...update.react, ...outcome.react } };
        route = exit;
      }
    }
    // Ids on what this step wrote, so the next input on the thread is found after the last of them.
    const written = (update.messages ?? []).map(withId);
    const lastMessageId = (written.at(-1) ?? state.messages.at(-1))?.id;
    update = { ...update, messages: written, react: { ...update.react, ...(lastMessageId ? { lastMessageId } : {}) } };
    const next = afterUpdate(state, update);
    noteRun(next);
    // A run that ends here is concluded here too: one step fewer.
    const concluded = route === exit && extension.conclude ? ((await extension.conclude({ ...state, ...next }, config)) as Record<string, unknown>) : {};
    return new Command({ goto: route === exit ? END : route, update: updateAfterStart(start, { ...update, ...concluded }) });
  };
  const runnableTools = [...tools.map((original) => reactTool(original, { clock, cache: cacheToolCalls, telemetry })), finishTool(finishSchema as FinishSchema, clock)];
  const toolNode = monitor || sentinel ? new GuardedToolNode(runnableTools, { logger, ...(monitor ? { monitor } : {}), ...(sentinel ? { sentinel } : {}), ...(sessionId === undefined ? {} : { sessionId }) }) : new ToolNode(runnableTools);
  const errors = { exit, clock, redact: telemetry.redact };
  const onModelError = modelErrorHandler({
    ...errors,
    ...(fallbackModel ? { fallbackModel } : {}),
    ...(typeof fallback === 'function' ? { fallbackFunction: fallback as never } : {}),
    fallbackSchema: extension.fallbackSchema ?? (finishSchema as FinishSchema),
    maxAttempts,
    retryOn,
    begin,
  });

  const graph = new ReactStateGraph({ state: extension.state ?? ReactAnnotation, input: extension.input, output: extension.output } as never);
  graph.reactRuntime = { ...extension.runtime, telemetry, recursionLimit: reactRecursionLimit(maxIterations) };
  graph.addNode('model', modelNode as never, {
    // LangGraph's own wait is 0: the model node waits the backoff through `sleep` at its next attempt (tests inject it)
    retryPolicy: { maxAttempts, initialInterval: 0, backoffFactor: 1, jitter: false, logWarning: false, retryOn },
    errorHandler: onModelError as never,
    ends: ['tools', 'model', 'settle', exit, END],
    ...(modelTimeoutMs === undefined ? {} : { timeout: modelTimeoutMs }),
  });
  graph.addNode('tools', toolNode as never, { errorHandler: toolsErrorHandler(errors) as never, ends: [exit], ...(toolTimeoutMs === undefined ? {} : { timeout: toolTimeoutMs }) });
  graph.addNode('settle', settleNode(limits) as never);
  if (extension.prepare) {
    // prepare says where to go itself (a Command), which costs LangGraph less than a conditional edge after it
    const prepare = extension.prepare;
    graph.addNode('prepare', (async (state: any, config: any) => {
      const update = (await prepare(state, config)) as { react?: Partial<ReactControllerState> } | undefined;
      noteRun({ react: update?.react ?? {} });
      return new Command({ goto: update?.react?.status && update.react.status !== 'running' ? exit : 'model', update: update ?? {} });
    }) as never, { ends: ['model', exit] });
    graph.addEdge(START, 'prepare' as never);
  } else graph.addEdge(START, 'model' as never);
  graph.addConditionalEdges('tools' as never, routeAfterTools(limits, exit) as never, ['model', 'settle', exit] as never);
  if (extension.conclude) {
    graph.addNode('conclude', extension.conclude as never);
    graph.addEdge('settle' as never, 'conclude' as never);
    graph.addEdge('conclude' as never, END);
  } else graph.addEdge('settle' as never, END);
  return graph;
}

/**
 * The recursion limit a run of `maxIterations` needs: a model and a tools step per iteration, and the steps around
 * them (`prepare`, `settle`, `conclude`, a failed model step and its error handler, twice with a fallback model).
 * Every compiled ReAct graph gives its runs at least this; pass a higher `recursionLimit` to raise it.
 */
export function reactRecursionLimit(maxIterations = DEFAULT_MAX_ITERATIONS): number {
  return 2 * maxIterations + 10;
}

type ModelNodeUpdate = { messages?: BaseMessage[]; react?: Partial<ReactControllerState>; panoptes?: string };

/** What the routers read after the model node's update: its new messages appended, its controller fields merged. */
function afterUpdate(state: ReactGraphState, update: ModelNodeUpdate): Pick<ReactGraphState, 'messages' | 'react'> {
  return { messages: update.messages?.length ? [...state.messages, ...update.messages] : state.messages, react: update.react ? { ...state.react, ...update.react } : state.react };
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
