import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolRequestParams,
  type CallToolResult,
  type Implementation,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import {
  approvalQuestions,
  assertFactSummaryOption,
  createPolicyTools,
  declinedText,
  factSummaryBlock,
  InvalidOptionError,
  needsOnlyApproval,
  sentinelFor,
  stableJson,
  toolRefusal,
  warnSafely,
  type CheckResult,
  type JudgedToolCallDecision,
  type Logger,
  type PolicyTool,
  type ToolCallDecision,
} from '../../src/index.js';
import { elicitApproval } from './elicit-approval.js';
import { assertMcpGuardOptions, createMcpGuard, refusalIn, type McpGuardOptions } from './guard.js';
import { refusalResult } from './translate.js';
import { upstreamTools, type McpUpstream } from './upstream.js';

/** What the server's request handlers know of a call besides its params: the SDK's `extra` (its signal, the transport's session id). */
export type McpRequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Default of `GuardedMcpServerOptions.approvalTimeoutMs`: how long the server waits for the user's answer to an elicitation. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;

/**
 * Panoptes' own failures a guarding server counts (and logs once each): an approval nobody gave in time, a client
 * that failed to ask, an approval that could not be recorded, a fact summary that could not be made.
 */
export type McpMissCause = 'approval-timeout' | 'approval-failed' | 'approval-record' | 'fact-summary';

/**
 * The URI of the resource a guarding server with a sentinel serves: the known facts as text (`[KNOWN FACTS]`, then
 * `facts.summarize()`), for the host to put into its model's context.
 */
export const FACTS_RESOURCE_URI = 'panoptes://facts';

/** Options of {@link createGuardedMcpServer}. Give a monitor, a sentinel, a judge, or several. */
export interface GuardedMcpServerOptions extends McpGuardOptions<McpRequestExtra> {
  /** The tools to serve: a client connected to the MCP server being guarded, or tool handlers by name. */
  upstream: McpUpstream;
  /**
   * Ask the policy's confirmations of one call (`askable ... for tool` in the rulebase) through MCP elicitation, when
   * the connected client declared the `elicitation` capability: a call the sentinel blocks on nothing but such
   * confirmations sends the client a form (the message names the exact call; approve or decline). An approval records
   * the confirmations for that call, which is checked again and runs; a decline answers that the user declined. A
   * client without the capability gets the refusal text, and the model asks in the chat.
   * @default false
   */
  approvals?: boolean;
  /** How long to wait for the user's answer; then the call is refused with the usual text, and the miss counted. @default 120000 */
  approvalTimeoutMs?: number;
  /** Serve the sentinel's tools for the model (`query_policy`, `set_context`, `record_confirmation`) beside the upstream's. @default true */
  policyTools?: boolean;
  /**
   * Serve the sentinel's known facts as the resource `panoptes://facts` (text, read afresh on each `resources/read`),
   * which the host puts into its model's context: an MCP server never sees the model's request, so it cannot add
   * them itself. A client that subscribes to it is told (`notifications/resources/updated`) after each tool call
   * that ran, since its result may have changed the facts. A `sessionId` function is called with the URI as the
   * call's `name`. `false` serves no resource.
   * @default true when a sentinel is given
   */
  factSummary?: boolean;
  /** How the server introduces itself to clients. @default { name: 'panoptes-guard', version: '1.0.0' } */
  serverInfo?: Implementation;
  /** Receives the server's own failures, once per kind. @default console */
  logger?: Logger;
}

/** The SDK's `Server`, guarding every `tools/call`, with the count of Panoptes' own failures. */
export type GuardedMcpServer = Server & {
  /** Panoptes' own failures so far, by cause (each cause is logged once). */
  misses(): Readonly<Partial<Record<McpMissCause, number>>>;
};

/**
 * An MCP server that serves the upstream's tools (`tools/list`, `tools/call`) with every call guarded as
 * `wrapMcpClient` guards it: the monitor first, then the sentinel, a refused call never reaching the upstream and
 * answered with an `isError` result telling the model why and what to do. What a call returned is reported to the
 * sentinel (a write consumes its confirmation, a read enters the fact store).
 *
 * Because it is a server, it can ask the user: with `approvals`, a call blocked only on confirmations of that exact
 * call is put to the user through elicitation (`elicitation/create`), bounded by `approvalTimeoutMs`. Like the SDK's
 * `Server`, one instance serves one connection.
 *
 * With a `judge`, a call the guards allow is judged with its `tool_call` rubrics before it reaches the upstream; a
 * rubric that asks is put to the user through elicitation when the client declared it (the approved call runs, the
 * judge's outcome reused), else the call is refused with the question.
 * @throws {InvalidOptionError} at construction for a missing guard, an upstream that is neither a client nor handlers,
 * `approvals` without a sentinel, a bad `approvalTimeoutMs`, or `monitor` or per-conversation sentinels without `sessionId`.
 * @example
 * const server = createGuardedMcpServer({ upstream: { get_booking: { inputSchema, execute: getBooking }, cancel_booking: { inputSchema, execute: cancel } }, sentinel, approvals: true });
 * await server.connect(new StdioServerTransport());
 */
export function createGuardedMcpServer(options: GuardedMcpServerOptions): GuardedMcpServer {
  const { upstream, sentinel, approvals = false, approvalTimeoutMs = DEFAULT_APPROVAL_TIMEOUT_MS, policyTools = true, factSummary = sentinel !== undefined, serverInfo = { name: 'panoptes-guard', version: '1.0.0' }, logger = console } = options;
  assertMcpGuardOptions(options);
  assertFactSummaryOption(factSummary, sentinel);
  if (approvals && sentinel === undefined) throw new InvalidOptionError({ parameter: 'approvals', value: approvals, fix: 'Approvals record the confirmations of a sentinel: pass `sentinel` too.' });
  if (!(Number.isFinite(approvalTimeoutMs) && approvalTimeoutMs > 0)) {
    throw new InvalidOptionError({ parameter: 'approvalTimeoutMs', value: approvalTimeoutMs, fix: `Pass a positive number of milliseconds; the default is ${DEFAULT_APPROVAL_TIMEOUT_MS}.` });
  }
  const tools = upstreamTools(upstream);
  const guard = createMcpGuard<McpRequestExtra>({ ...options, logger });
  const policy = new Map((sentinel && policyTools ? createPolicyTools(sentinel, { logger }) : []).map((tool) => [tool.name, tool]));
  const policyList: Tool[] = [...policy.values()].map(({ name, description, parameters }) => ({ name, description, inputSchema: { ...parameters } }));
  const misses = createMissCount(logger);
  const server = new Server(serverInfo, { capabilities: { tools: {}, ...(factSummary ? { resources: { subscribe: true } } : {}) } });

  const clientCanAsk = () => server.getClientCapabilities()?.elicitation?.form !== undefined;
  /** A check that only the user's yes to this call stands in the way of, and a client that can ask them. */
  const canAsk = (decision: JudgedToolCallDecision): decision is Extract<ToolCallDecision, { allowed: false }> & { check: CheckResult } =>
    approvals && !decision.allowed && decision.by !== 'judge' && decision.check !== undefined && needsOnlyApproval(decision.check) && clientCanAsk();
  /** The judge asks the user about this call (a rubric's `ask`), and the client can ask them. */
  const judgeAsks = (decision: JudgedToolCallDecision): decision is Extract<JudgedToolCallDecision, { by: 'judge' }> => !decision.allowed && decision.by === 'judge' && decision.refusal.decision === 'ask' && clientCanAsk();

  /** Puts the call to the user; the refusal to answer with when they do not approve it, else undefined. */
  async function asked(params: CallToolRequestParams, question: string, refusal: ReturnType<typeof refusalIn>, extra: McpRequestExtra): Promise<CallToolResult | undefined> {
    const approval = await elicitApproval(extra.sendRequest, question, { timeoutMs: approvalTimeoutMs, signal: extra.signal });
    if (approval.answer === 'decline') return refusalResult({ ...refusal, reason: declinedText(params.name) });
    if (approval.answer === 'none') {
      if (extra.signal.aborted) return refusalResult(refusal); // the client cancelled its own call: nobody to answer, nothing failed
      const what = approval.cause === 'approval-timeout' ? `No answer to the approval of ${params.name} came within ${approvalTimeoutMs} ms;` : `The client failed to ask for the approval of ${params.name};`;
      misses.record(approval.cause, `${what} the call was refused, and the model reads how to ask in the chat.`, approval.error);
      return refusalResult(refusal);
    }
    return undefined;
  }

  /** Puts the policy's confirmations to the user; the refusal to answer with, or undefined when the approval is recorded. */
  async function approve(params: CallToolRequestParams, decision: Extract<ToolCallDecision, { allowed: false }> & { check: CheckResult }, extra: McpRequestExtra): Promise<CallToolResult | undefined> {
    const refusal = toolRefusal(params.name, decision);
    const refused = await asked(params, approvalQuestions(decision.check).join('\n'), refusal, extra);
    if (refused) return refused;
    try {
      sentinelFor(sentinel!, guard.sessionOf(params, extra)).recordApproval(decision.check);
    } catch (error) {
      misses.record('approval-record', `Recording the user's approval of ${params.name} failed; the call was refused.`, error);
      return refusalResult(refusal);
    }
    return undefined;
  }

  async function callTool(params: CallToolRequestParams, extra: McpRequestExtra): Promise<CallToolResult> {
    let decision = await guard.decide(params, extra);
    if (canAsk(decision)) {
      const refused = await approve(params, decision, extra);
      if (refused) return refused;
      decision = await guard.decide(params, extra); // the approved call, checked again with its confirmations
    }
    if (judgeAsks(decision)) {
      const question = `Approve ${params.name}(${stableJson(params.arguments ?? {})})? ${decision.judged.message ?? ''}`.trim();
      const refused = await asked(params, question, decision.refusal, extra);
      if (refused) return refused;
      // The approved call, checked again: the rubric's question is answered, the judge's outcome reused.
      decision = await guard.decide(params, extra, { approved: true, judged: decision.judged });
    }
    if (!decision.allowed) return refusalResult(refusalIn(params.name, decision));
    const ownTool = policy.get(params.name);
    const result = ownTool ? await runPolicyTool(ownTool, params, guard.sessionOf(params, extra)) : await tools.call(params, extra.signal);
    guard.record(params, result as Record<string, unknown>, extra);
    if (factsSubscribed) void server.sendResourceUpdated({ uri: FACTS_RESOURCE_URI }).catch(() => undefined); // a client gone is not a failure of the call
    return result;
  }

  // The facts as a resource: the host reads it into its model's context.
  let factsSubscribed = false;
  if (factSummary && sentinel) {
    const known = (uri: string) => {
      if (uri !== FACTS_RESOURCE_URI) throw new McpError(ErrorCode.InvalidParams, `No resource ${uri}: this server serves ${FACTS_RESOURCE_URI} only.`);
    };
    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: [{ uri: FACTS_RESOURCE_URI, name: 'known-facts', title: 'Known facts', description: 'What the policy knows of this conversation: context bindings, facts, derived conclusions. Put it in the model’s context.', mimeType: 'text/plain' }],
    }));
    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => {
      known(request.params.uri);
      const block = factSummaryBlock(sentinel, guard.sessionOf({ name: FACTS_RESOURCE_URI }, extra), (error) => misses.record('fact-summary', 'Summarising the known facts (sentinel.facts.summarize) failed; the resource was read empty.', error));
      // A summary that could not be made is left out, as every host leaves it out of the model's request.
      return { contents: block === undefined ? [] : [{ uri: FACTS_RESOURCE_URI, mimeType: 'text/plain', text: block }] };
    });
    server.setRequestHandler(SubscribeRequestSchema, (request) => (known(request.params.uri), (factsSubscribed = true), {}));
    server.setRequestHandler(UnsubscribeRequestSchema, (request) => (known(request.params.uri), (factsSubscribed = false), {}));
  }

  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const cursor = request.params?.cursor;
    const page = await tools.list(cursor, extra.signal);
    // The sentinel's own tools come first, on the first page, and hide an upstream tool of the same name.
    const upstreamPage = page.tools.filter((tool) => !policy.has(tool.name));
    return { ...page, tools: cursor === undefined ? [...policyList, ...upstreamPage] : upstreamPage };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(request.params, extra));
  return Object.assign(server, { misses: misses.counts });
}

async function runPolicyTool(tool: PolicyTool, params: CallToolRequestParams, sessionId: string | undefined): Promise<CallToolResult> {
  const result = await tool.execute(params.arguments ?? {}, { sessionId });
  return { content: [{ type: 'text', text: result.content }], isError: result.isError };
}

/** Counts the server's own failures by cause and logs the first of each cause. */
function createMissCount(logger: Logger) {
  const counts: Partial<Record<McpMissCause, number>> = {};
  return {
    record(cause: McpMissCause, message: string, error: unknown) {
      counts[cause] = (counts[cause] ?? 0) + 1;
      if (counts[cause] === 1) warnSafely(logger, `[panoptes] ${message} Later ${cause} failures are counted, not logged.`, error);
    },
    counts: (): Readonly<Partial<Record<McpMissCause, number>>> => ({ ...counts }),
  };
}
