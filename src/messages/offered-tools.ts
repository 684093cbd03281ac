/**
 * The names of the tools a model call offers, for the loop detector's `unknown-tool` check. Reads each tool's `name`
 * (LangChain tools, AI SDK function tools) or `function.name` (OpenAI's request format). `undefined` when no list is
 * given or a tool has no name it can read: the check then does not run, rather than misjudge a call.
 * @example
 * offeredToolNames([{ type: 'function', function: { name: 'verify_identity' } }]) // ['verify_identity']
 */
export function offeredToolNames(tools: unknown): string[] | undefined {
  if (!Array.isArray(tools)) return undefined;
  const names: string[] = [];
  for (const tool of tools) {
    const named = tool as { name?: unknown; function?: { name?: unknown } } | null;
    const name = typeof named?.name === 'string' ? named.name : named?.function?.name;
    if (typeof name !== 'string') return undefined;
    names.push(name);
  }
  return names;
}
