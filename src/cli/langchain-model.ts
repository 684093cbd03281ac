/**
 * A chat model from a `provider:name` string through LangChain's `initChatModel`, imported only when asked:
 * `langchain` and the provider package are the user's dependencies, never loaded by the rest of the CLI.
 * @throws {Error} with what to install, or how to write the name.
 */
export async function initLangChainChatModel(spec: string, flag = '--model'): Promise<unknown> {
  const specifier = 'langchain/chat_models/universal';
  let universal: { initChatModel: (model: string, fields?: Record<string, unknown>) => Promise<unknown> };
  try {
    universal = (await import(specifier)) as typeof universal;
  } catch (error) {
    throw new Error(`${flag} needs the \`langchain\` package and a provider package (e.g. @langchain/openai): npm install langchain @langchain/openai (${(error as Error).message})`);
  }
  try {
    return await universal.initChatModel(spec, { temperature: 0 });
  } catch (error) {
    throw new Error(`cannot load the model '${spec}': ${(error as Error).message}; write it as provider:name, e.g. openai:gpt-4o-mini, and install the provider's package`);
  }
}
