/**
 * `npm run example:loops`: an agent going round in circles, nudged by Panoptes, changing course.
 *
 * A LangChain `createAgent` agent answers a product question. Its search tool finds nothing, so it searches again
 * in other words (a semantic loop: no two calls are alike, the intent is the same); then the support page it turns
 * to is down, and it retries the same call (a structural loop). Loop detection is one option of the monitor,
 * `createMonitor({ workflow, loops })`, and one line adds the monitor to the agent,
 * `middleware: [panoptesMiddleware({ monitor })]`. Each loop found puts a hint into the agent's next request only;
 * the same loop found again gets a stronger hint; a third time would end the run with an AI message saying why.
 *
 * Why LangChain rather than the AI SDK: there a loop that reaches `stop` ends the run the host's own way (an answer
 * without tool calls), while the AI SDK middleware rejects `generateText` with `LoopDetectedError`; and a second,
 * inner middleware can print the very request the model receives, hint included.
 *
 * Offline by default, and deterministic: the model is a scripted `fakeModel()` that reads its request and reacts to
 * the hint as a model would (it keeps rephrasing or retrying until told otherwise, and shrugs off the first hint
 * about the retries), and the semantic check runs on a toy embedder (see `conceptEmbedder`). With
 * `OPENAI_API_KEY` set, the agent runs on `gpt-4o-mini` with `text-embedding-3-small` embeddings instead; what that
 * run does is up to the model. It imports `panoptes` and `panoptes/langchain` as your project would.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { createAgent, createMiddleware } from 'langchain';
import pc from 'picocolors';
import { z } from 'zod';
import { createMonitor, GUIDANCE_HEADER, parseWorkflow, type Embedder, type LoopDetectorOptions, type LoopReport } from 'panoptes';
import { panoptesMiddleware, textOf } from 'panoptes/langchain';
import { createFakeEmbedder } from 'panoptes/testing';

const SYSTEM = 'You are the support assistant of a home-appliance shop. Answer product questions using the tools. Be brief.';
const QUESTION = 'How long is the warranty on my Acme X200 kettle?';
const THREAD = 'kettle-question';
const SUPPORT_PAGE = 'https://support.acme.example/x200/warranty';

/** The monitor needs a workflow; this one only names the agent's steps. Loops are what this example is about. */
const workflow = parseWorkflow(`
name: product-question
states:
  - { name: question, initial: true }
  - { name: research, classification: { tool_calls: [search_docs, fetch_page, get_product_specs] } }
  - { name: answer, terminal: true, classification: { patterns: ["warranty"] } }
transitions:
  - { from: question, to: research }
  - { from: research, to: answer }
`);

const say = {
  customer: (text: string) => console.log(`${pc.bold('customer')}  ${text}`),
  agent: (text: string) => console.log(`${pc.bold(pc.cyan('agent'))}     ${text}`),
  tool: (text: string) => console.log(`${pc.dim('tool')}      ${pc.dim(text)}`),
  panoptes: (text: string) => console.log(`${pc.bold(pc.magenta('panoptes'))}  ${text}`),
};

/** The shop's back office: a search index with nothing in it on the subject, a support site that is down, and the product database. */
const tools = [
  tool(async ({ query }) => `No documents match "${query}".`, {
    name: 'search_docs',
    description: 'Full-text search over the support articles.',
    schema: z.object({ query: z.string().describe('What to search for') }),
  }),
  tool(
    // A failed fetch answers with an error result, as a real HTTP tool would: the model (and Panoptes) read it as a failure.
    async ({ url }, config) =>
      new ToolMessage({ content: `503 Service Unavailable: ${new URL(url).host} is down for maintenance.`, tool_call_id: config.toolCall?.id ?? '', name: 'fetch_page', status: 'error' }),
    { name: 'fetch_page', description: 'Fetch a web page and return its text.', schema: z.object({ url: z.string().describe('The page address') }) },
  ),
  tool(async ({ sku }) => JSON.stringify({ sku, name: 'Acme X200 electric kettle', warranty: '2 years from the date of purchase', capacity: '1.7 l' }), {
    name: 'get_product_specs',
    description: 'Look up a product in the product database by its SKU.',
    schema: z.object({ sku: z.string().describe('The product SKU, e.g. X200') }),
  }),
];

/**
 * A toy embedder for the semantic check, so the example runs offline and gives the same numbers every time. It is
 * not a language model: it knows a dozen words, maps synonyms to one concept (guarantee = warranty, how long =
 * period) and counts concepts, the called tool weighing as much as three words. It places the agent's rephrased
 * searches close together the way a sentence-embedding model places paraphrases, but only for its own vocabulary.
 *
 * With a real model (`createTransformersEmbedder()`, or any LangChain embeddings object such as `OpenAIEmbeddings`),
 * look at the similarities your agent's paraphrases actually get before relying on the default `threshold` (0.95).
 * The lexical embedder (`createLexicalEmbedder()`) compares characters, so it only catches near-verbatim repeats.
 */
const CONCEPTS: Record<string, string> = {
  search_docs: 'tool:search', fetch_page: 'tool:fetch', get_product_specs: 'tool:specs',
  warranty: 'warranty', guarantee: 'warranty', guaranteed: 'warranty', covered: 'warranty',
  period: 'duration', long: 'duration', length: 'duration', years: 'duration',
  acme: 'acme', x200: 'x200', kettle: 'kettle',
};
const DIMENSIONS = [...new Set(Object.values(CONCEPTS))];
const TOOL_WEIGHT = 3;

function conceptEmbedder(): Embedder {
  return createFakeEmbedder({
    embed: (text) => {
      const vector = new Array<number>(DIMENSIONS.length + 1).fill(0);
      for (const word of text.toLowerCase().match(/[a-z0-9_]+/g) ?? []) {
        const concept = CONCEPTS[word];
        if (concept !== undefined) vector[DIMENSIONS.indexOf(concept)]! += concept.startsWith('tool:') ? TOOL_WEIGHT : 1;
      }
      vector[DIMENSIONS.length] = 0.01; // a step with none of the known words is still a valid vector, near nothing else
      return vector;
    },
  });
}

/** The searches a stubborn agent tries, one per turn, until something tells it to stop. */
const REPHRASINGS = ['Acme X200 warranty', 'X200 kettle guarantee period', 'how long is the Acme X200 kettle guaranteed', 'kettle warranty length'];

/**
 * A scripted agent that decides from its request, like a real model: it searches in other words while searching
 * finds nothing, retries a failing page, and changes course only when its request says so. What changes its course
 * is the hint Panoptes put into that request; without loop detection it would go on until the recursion limit.
 */
function scriptedModel() {
  const decide = (messages: BaseMessage[]): AIMessage => {
    const system = messages[0]?.getType() === 'system' ? textOf(messages[0].content) : '';
    const hint = system.includes(GUIDANCE_HEADER) ? system.slice(system.indexOf(GUIDANCE_HEADER)) : '';
    const calls = messages.flatMap((message) => (AIMessage.isInstance(message) ? (message.tool_calls ?? []) : []));
    const specs = messages.find((message) => ToolMessage.isInstance(message) && message.name === 'get_product_specs');
    const call = (name: string, args: Record<string, string>, text = '') =>
      new AIMessage({ content: text, tool_calls: [{ id: `call-${calls.length + 1}`, name, args, type: 'tool_call' }] });

    if (specs) {
      const { warranty } = JSON.parse(textOf(specs.content)) as { warranty: string };
      return new AIMessage(`Your Acme X200 kettle has a warranty of ${warranty}. The support site is down right now, so I took this from the product database.`);
    }
    if (hint.includes('still repeating')) return call('get_product_specs', { sku: 'X200' }, 'The support site is not coming back; I will look the kettle up in the product database instead.');
    const last = calls.at(-1)?.name;
    // A flaky site: try again, word for word, even after a first hint.
    if (last === 'fetch_page' || (hint !== '' && last === 'search_docs')) return call('fetch_page', { url: SUPPORT_PAGE }, 'Let me read the warranty page on the support site.');
    const searches = calls.filter((entry) => entry.name === 'search_docs').length;
    return call('search_docs', { query: REPHRASINGS[searches % REPHRASINGS.length]! });
  };
  const model = fakeModel();
  for (let turn = 0; turn < 20; turn++) model.respond(decide);
  return model;
}

/**
 * Prints the story as it happens. It sits inside Panoptes' middleware, so it sees each request as the model receives
 * it (hint included) and each response before Panoptes classifies it.
 */
function narrator() {
  let calls = 0;
  return createMiddleware({
    name: 'Narrator',
    wrapModelCall: async (request, handler) => {
      console.log(pc.dim(`\n-- model call ${++calls} --`));
      const system = textOf(request.systemMessage.content);
      if (system.includes(GUIDANCE_HEADER)) {
        const hint = system.slice(system.indexOf(GUIDANCE_HEADER) + GUIDANCE_HEADER.length).trim();
        say.panoptes(`added to this request only: ${pc.italic(`"${hint}"`)}`);
      }
      const response = await handler(request);
      if (textOf(response.content)) say.agent(textOf(response.content));
      for (const call of response.tool_calls ?? []) say.agent(pc.dim(`calls ${call.name}(${JSON.stringify(call.args)})`));
      return response;
    },
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      if (ToolMessage.isInstance(result)) {
        const text = `${result.name} -> ${textOf(result.content)}`;
        if (result.status === 'error') say.tool(pc.red(`failed: ${text}`));
        else say.tool(text);
      }
      return result;
    },
  });
}

function describeLoop(report: LoopReport): string {
  const { evidence } = report;
  const what =
    report.kind === 'semantic'
      ? `step ${evidence.steps[1]} is ${evidence.similarity!.toFixed(2)} similar to step ${evidence.steps[0]} (other words, same intent)`
      : `${report.detail} (steps ${evidence.steps.join(', ')})`;
  const next = { hint: 'A hint goes into the next request.', 'stronger-hint': 'A stronger hint goes into the next request.', stop: 'The run ends.' }[report.action];
  return `${pc.yellow(`${report.kind} loop`)} (detection ${report.detection}): ${what}. ${next}`;
}

async function main() {
  const online = Boolean(process.env.OPENAI_API_KEY);
  const loops: LoopDetectorOptions = online
    ? // A network embedder needs more than the 50 ms default budget, or every step would fail open unchecked. The
      // threshold is a starting point for this model, not a measured value: check it on your own transcripts.
      { embedder: new OpenAIEmbeddings({ model: 'text-embedding-3-small' }), timeoutMs: 2_000, threshold: 0.9 }
    : { embedder: conceptEmbedder() };
  const monitor = createMonitor({ workflow, loops });
  const found: LoopReport[] = [];
  monitor.on('loop', ({ report }) => {
    found.push(report);
    say.panoptes(describeLoop(report));
  });

  const agent = createAgent({
    model: online ? new ChatOpenAI({ model: 'gpt-4o-mini' }) : scriptedModel(),
    tools,
    systemPrompt: SYSTEM,
    middleware: [panoptesMiddleware({ monitor }), narrator()],
  });

  console.log(pc.bold(`\nPanoptes loop detection + LangChain createAgent, ${online ? 'gpt-4o-mini' : 'a scripted model (set OPENAI_API_KEY for a real one)'}`));
  console.log(
    pc.dim(
      online
        ? 'Semantic check: text-embedding-3-small, threshold 0.9.\n'
        : 'Semantic check: a toy embedder that knows a few synonyms (a deterministic stand-in for a sentence-embedding model).\n',
    ),
  );
  say.customer(QUESTION);
  const result = await agent.invoke({ messages: [new HumanMessage(QUESTION)] }, { configurable: { thread_id: THREAD }, recursionLimit: 40 });

  const modelCalls = result.messages.filter((message) => AIMessage.isInstance(message)).length;
  const stopped = found.some((report) => report.action === 'stop');
  const hintsInHistory = result.messages.some((message) => textOf(message.content).includes(GUIDANCE_HEADER));
  console.log(pc.bold('\nLoops found'));
  if (found.length === 0) console.log('  none');
  for (const report of found) console.log(`  step ${String(report.step).padEnd(3)} ${report.kind.padEnd(15)} detection ${report.detection} -> ${report.action}`);
  console.log(
    stopped
      ? '\nThe agent kept looping after two hints, so Panoptes ended the run.\n'
      : found.length > 0
        ? `\nThe agent changed course after Panoptes' hints and answered in ${modelCalls} model calls; nothing had to be stopped. ${hintsInHistory ? 'The thread holds the hints.' : "The thread's history holds no hint: each went into one request only."}\n`
        : '\nThe agent did not loop; Panoptes changed nothing.\n',
  );
}

await main();
