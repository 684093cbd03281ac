import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel, type FakeBuiltModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { panoptesMiddleware, textOf } from '../../../adapters/langchain/index.js';
import { createMonitor, GUIDANCE_HEADER, LoopDetectedError, parseWorkflow, type Logger, type LoopReport, type MonitorOptions } from '../../../src/index.js';
import { createFakeEmbedder } from '../../../src/testing/index.js';

/**
 * Loop detection through a real `createAgent` run (issue 5: "the same scenarios through createAgent"): the monitor
 * is created with `loops`, the middleware is the only wiring, and the assertions read what the model received.
 */

const SYSTEM = 'You are a research assistant.';
const workflow = parseWorkflow(`
name: research
states:
  - { name: question, initial: true }
  - { name: research, classification: { tool_calls: [fetch_page, check_status, search_docs] } }
transitions:
  - { from: question, to: research }
`);

function quietLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
}

function setup(loops: MonitorOptions['loops']) {
  const logger = quietLogger();
  const monitor = createMonitor({ workflow, loops, logger });
  const reports: LoopReport[] = [];
  monitor.on('loop', ({ report }) => void reports.push(report));
  return { monitor, reports, logger };
}

/** Tools over spies: a page that is always down, a job that is always pending, a search that finds nothing. */
function researchTools() {
  const fetchPage = vi.fn(async (_input: { url: string }, config: { toolCall?: { id?: string } }) =>
    // A failure as a tool reports it: an error result the model reads (createAgent rethrows a thrown tool error).
    new ToolMessage({ content: 'HTTP 503 Service Unavailable', tool_call_id: config.toolCall?.id ?? '', name: 'fetch_page', status: 'error' }),
  );
  const checkStatus = vi.fn(async () => JSON.stringify({ job: 'export-7', status: 'pending' }));
  const searchDocs = vi.fn(async ({ query }: { query: string }) => `No documents match "${query}".`);
  return {
    fetchPage,
    checkStatus,
    searchDocs,
    tools: [
      tool(fetchPage, { name: 'fetch_page', description: 'Fetch a page', schema: z.object({ url: z.string() }) }),
      tool(checkStatus, { name: 'check_status', description: 'Poll the export job', schema: z.object({ job: z.string() }) }),
      tool(searchDocs, { name: 'search_docs', description: 'Search the docs', schema: z.object({ query: z.string() }) }),
    ],
  };
}

const callTool = (name: string, args: Record<string, unknown>, id: string) => new AIMessage({ content: '', tool_calls: [{ name, args, id, type: 'tool_call' }] });

async function run(model: FakeBuiltModel, loops: MonitorOptions['loops'], options: { onBlock?: 'end' | 'throw' } = {}) {
  const { monitor, reports, logger } = setup(loops);
  const tools = researchTools();
  const agent = createAgent({ model, tools: tools.tools, systemPrompt: SYSTEM, middleware: [panoptesMiddleware({ monitor, ...options })] });
  const result = await agent.invoke({ messages: [new HumanMessage('Find the warranty of the X200.')] }, { configurable: { thread_id: 'loop-thread' }, recursionLimit: 60 });
  return { result, reports, tools, logger, monitor };
}

/** The system text of each request the model received, with the agent's own prompt cut off: what Panoptes added. */
const addedToSystem = (model: FakeBuiltModel) =>
  model.calls.map((call) => {
    const system = call.messages[0]?.getType() === 'system' ? textOf(call.messages[0].content) : '';
    return system.startsWith(SYSTEM) ? system.slice(SYSTEM.length).trim() : `(system replaced) ${system}`;
  });

const textsOf = (messages: readonly BaseMessage[]) => messages.map((message) => textOf(message.content));

describe('loop detection through createAgent', () => {
  it('a repeated failing call: a hint in the next request, then a stronger one, then the run ends', async () => {
    const model = fakeModel();
    for (let call = 0; call < 10; call++) model.respond(callTool('fetch_page', { url: 'https://acme.example/x200' }, `f${call}`));
    const { result, reports, tools } = await run(model, true);

    const added = addedToSystem(model);
    expect(added.slice(0, 3)).toEqual(['', '', '']);
    expect(added[3]).toBe(`${GUIDANCE_HEADER}\nYou seem to be repeating yourself: \`fetch_page\` failed 3 times in a row with the same arguments. Take a different approach, or consider that your previous attempts may already have answered the question.`);
    expect(added[4]).toMatch(new RegExp(`^\\${GUIDANCE_HEADER}\\nYou are still repeating yourself after being told so: \`fetch_page\` failed 4 times in a row`));
    // The sixth request never reaches the model: the run ends with an answer saying why, which has no tool calls.
    expect(model.calls).toHaveLength(5);
    expect(tools.fetchPage).toHaveBeenCalledTimes(5);
    const last = result.messages.at(-1)!;
    expect(AIMessage.isInstance(last) && last.tool_calls).toEqual([]);
    expect(textOf(last.content)).toBe(
      '[Panoptes] This run was stopped: The run was stopped because the agent kept repeating itself after being asked to change course: `fetch_page` failed 5 times in a row with the same arguments.',
    );
    expect(reports.filter((report) => report.kind === 'repeated-error').map((report) => [report.detection, report.action])).toEqual([
      [1, 'hint'],
      [2, 'stronger-hint'],
      [3, 'stop'],
    ]);
    // Each hint went into one request: the thread's history never holds one.
    expect(textsOf(result.messages).some((text) => text.includes(GUIDANCE_HEADER))).toBe(false);
  });

  it('the agent that heeds the hint is not stopped', async () => {
    const model = fakeModel();
    const heed = (messages: BaseMessage[]) =>
      textOf(messages[0]!.content).includes('repeating yourself') ? callTool('search_docs', { query: 'X200 warranty' }, 's1') : callTool('fetch_page', { url: 'https://acme.example/x200' }, `f${messages.length}`);
    for (let call = 0; call < 4; call++) model.respond(heed);
    model.respond(new AIMessage('I could not find it: the page is down and the docs have nothing on it.'));
    const { result, reports, tools } = await run(model, true);

    expect(tools.fetchPage).toHaveBeenCalledTimes(3);
    expect(tools.searchDocs).toHaveBeenCalledTimes(1);
    expect(reports.map((report) => `${report.kind} ${report.action}`)).toEqual(['repeated-error hint']);
    expect(textOf(result.messages.at(-1)!.content)).toBe('I could not find it: the page is down and the docs have nothing on it.');
  });

  it('semantic: a rephrased search, close by the embedder, gets a hint in the next request', async () => {
    // The test chooses the similarities: the two rephrasings are 0.99 alike, the first query unlike both.
    const vectors: Record<string, number[]> = {
      'search_docs({"query":"X200 manual"})': [0, 1, 0],
      'search_docs({"query":"X200 warranty"})': [1, 0, 0],
      'search_docs({"query":"how long is the X200 guaranteed"})': [0.99, 0.141, 0],
    };
    const embedder = createFakeEmbedder({ vectors });
    const model = fakeModel()
      .respond(callTool('search_docs', { query: 'X200 manual' }, 's1'))
      .respond(callTool('search_docs', { query: 'X200 warranty' }, 's2'))
      .respond(callTool('search_docs', { query: 'how long is the X200 guaranteed' }, 's3'))
      .respond(new AIMessage('The docs do not say.'));
    const { reports } = await run(model, { embedder });

    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ kind: 'semantic', action: 'hint', evidence: { steps: [2, 3] } });
    expect(reports[0]!.evidence.similarity).toBeCloseTo(0.99, 2);
    expect(addedToSystem(model)).toEqual([
      '',
      '',
      '',
      `${GUIDANCE_HEADER}\nYou seem to be repeating yourself: your latest step is almost the same as one you took just before. Take a different approach, or consider that your previous attempts may already have answered the question.`,
    ]);
  });

  describe('near-misses stay quiet', () => {
    /** Polls a job six times with the same answer, then reports. */
    const poller = () => {
      const model = fakeModel();
      for (let poll = 0; poll < 6; poll++) model.respond(callTool('check_status', { job: 'export-7' }, `p${poll}`));
      return model.respond(new AIMessage('The export is still running; I will tell you when it is done.'));
    };

    it('polling an exempt tool: no hint, no loop, the run ends with the answer', async () => {
      const model = poller();
      const { result, reports, tools } = await run(model, { exemptTools: ['check_status'] });
      expect(tools.checkStatus).toHaveBeenCalledTimes(6);
      expect(reports).toEqual([]);
      expect(addedToSystem(model)).toEqual(['', '', '', '', '', '', '']);
      expect(textOf(result.messages.at(-1)!.content)).toBe('The export is still running; I will tell you when it is done.');
    });

    it('(the same polling, not exempt, is a repeated action: the exemption is what keeps it quiet)', async () => {
      const model = poller();
      const { reports } = await run(model, true);
      expect(reports[0]).toMatchObject({ kind: 'repeated-action', action: 'hint', evidence: { repetitions: 4 } });
      expect(addedToSystem(model)[4]).toContain('you called `check_status` 4 times in a row with the same arguments and got the same result each time');
    });

    it('a retry with a changed argument is a new call, not a repeat', async () => {
      const model = fakeModel();
      for (const [index, url] of ['https://acme.example/x200', 'https://acme.example/x200', 'https://acme.example/products/x200', 'https://mirror.acme.example/x200'].entries()) {
        model.respond(callTool('fetch_page', { url }, `f${index}`));
      }
      model.respond(new AIMessage('Every copy of the page is down.'));
      const { reports, tools } = await run(model, true);
      expect(tools.fetchPage).toHaveBeenCalledTimes(4);
      expect(reports).toEqual([]);
      expect(addedToSystem(model).every((added) => added === '')).toBe(true);
    });
  });

  it('calls to a tool the agent does not offer: a hint naming the offered tools at the 2nd, the run ends at the 3rd (issue 15)', async () => {
    const model = fakeModel();
    for (let call = 0; call < 6; call++) model.respond(callTool('browse_web', { url: 'https://acme.example/x200' }, `b${call}`));
    const { reports, result } = await run(model, true);
    expect(reports.filter((report) => report.kind === 'unknown-tool').map((report) => report.action)).toEqual(['hint', 'stop']);
    expect(addedToSystem(model)[2]).toContain('`fetch_page`, `check_status`, `search_docs`');
    expect(model.calls).toHaveLength(3);
    expect(textOf(result.messages.at(-1)!.content)).toContain('[Panoptes] This run was stopped');
  });

  it('a line the model keeps repeating in its reasoning blocks is a loop (issue 15)', async () => {
    const model = fakeModel();
    const thinking = Array.from({ length: 6 }, (_, i) => `Option ${i} might work.\nWait, let me re-read the warranty terms.`).join('\n');
    model.respond(new AIMessage({ content: [{ type: 'reasoning', reasoning: thinking }, { type: 'text', text: 'The X200 has a two-year warranty.' }] }));
    const { reports } = await run(model, true);
    expect(reports.map((report) => report.kind)).toEqual(['repeated-line']);
  });

  it("onBlock: 'throw' rejects agent.invoke with LoopDetectedError when a loop reaches stop", async () => {
    const model = fakeModel();
    for (let call = 0; call < 10; call++) model.respond(callTool('fetch_page', { url: 'https://acme.example/x200' }, `f${call}`));
    const error = await run(model, true, { onBlock: 'throw' }).catch((thrown: unknown) => thrown);
    expect(LoopDetectedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'repeated-error', sessionId: 'loop-thread' });
    expect(model.calls).toHaveLength(5);
  });
});
