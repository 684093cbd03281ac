import { ToolMessage } from '@langchain/core/messages';
import { tool, type DynamicStructuredTool } from '@langchain/core/tools';
import { createPolicyTools, type Logger, type PolicyTool, type SentinelSource } from '../../src/index.js';
import { namedSessionId } from './session-id.js';

/**
 * The sentinel's tools for the model as LangChain tools: query the policy, set a context variable, record the user's
 * confirmation. Refusals name these tools, so an agent guarded by a sentinel should have them; `panoptesMiddleware`
 * registers them itself. An answer the model must correct comes back as an error `ToolMessage`. With
 * per-conversation sentinels, each call acts on the sentinel of its run's `configurable.thread_id` (or
 * `metadata.session_id`, or `sessionId` when given). When the run names none, the ones `panoptesMiddleware`
 * registers use the session it hashed from the conversation, and `GuardedToolNode` hands its hashed session to the
 * tools it runs as `metadata.session_id`. A failure of their own (a call that names no conversation) is logged once
 * to `logger` (default `console`); the model reads that the policy could not be consulted.
 * @example
 * const agent = createAgent({ model, tools: [...wrapTools(tools, { sentinel }), ...policyTools(sentinel)] });
 */
export function policyTools(sentinel: SentinelSource, { sessionId, logger }: { sessionId?: string; logger?: Logger } = {}): DynamicStructuredTool[] {
  return policyToolsFindingSession(sentinel, (config) => namedSessionId(sessionId, config), logger);
}

/** The parts of a tool run's config a policy tool reads to find its conversation. */
export interface ToolRunConfig {
  configurable?: { thread_id?: unknown };
  metadata?: { session_id?: unknown };
  toolCall?: { id?: string | undefined } | undefined;
}

/**
 * The policy tools, each call acting on the sentinel of the session `sessionOf` finds for it. The middleware passes
 * the session it worked out for the call (a hash of the conversation when the run names none).
 */
export function policyToolsFindingSession(sentinel: SentinelSource, sessionOf: (config: ToolRunConfig) => string | undefined, logger?: Logger): DynamicStructuredTool[] {
  return createPolicyTools(sentinel, logger ? { logger } : {}).map((policyTool) => toLangChainTool(policyTool, sessionOf));
}

function toLangChainTool(policyTool: PolicyTool, sessionOf: (config: ToolRunConfig) => string | undefined): DynamicStructuredTool {
  return tool(
    async (input: unknown, config) => {
      const { content, isError } = await policyTool.execute(input, { sessionId: sessionOf(config) });
      const id = config.toolCall?.id;
      // Without a tool call to answer (a direct invoke), the text is the result either way.
      return isError && id ? new ToolMessage({ content, tool_call_id: id, name: policyTool.name, status: 'error' }) : content;
    },
    { name: policyTool.name, description: policyTool.description, schema: policyTool.parameters },
  ) as DynamicStructuredTool;
}
