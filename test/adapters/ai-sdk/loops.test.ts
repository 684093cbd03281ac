import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it, vi } from 'vitest';
import { panoptesMiddleware, panoptesStopCondition } from '../../../adapters/ai-sdk/index.js';
import { createMonitor, GUIDANCE_HEADER, LoopDetectedError, parseWorkflow, type Logger, type LoopReport, type MonitorOptions } from '../../../src/index.js';
import { createFakeEmbedder } from '../../../src/testing/index.js';

/**
 * Loop detection through a real `generateText` tool loop (issue 5: "the same scenarios through generateText"): the
 * monitor is created with `loops`, `panoptesMiddleware` on the model is the only wiring, and the assertions read
 * the prompts the mock model received.
 */

type Prompt = Parameters<MockLanguageModelV3['doGenerate']>[0]['prompt'];
type Result = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

const SYSTEM = 'You are a research assistant.';
const SESSION = 'loop-session';
const workflow = parseWorkflow(`
name: research
states:
  - { name: question, initial: true }
  - { name: research, classification: { tool_calls: [fetch_page, check_status, search_docs] } }
transitions:
  - { from: question, to: research }
`);

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
const callTool = (toolName: string, input: Record<string, unknown>, toolCallId: string): Result => ({
  content: [{ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage,
  warnings: [],
});
const say = (text: string): Result => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] });

/** A mock model that decides each answer from its prompt and the call's number. */
const scripted = (decide: (prompt: Prompt, call: number) => Result) => {
  let calls = 0;
  return new MockLanguageModelV3({ doGenerate: async ({ prompt }) => decide(prompt, calls++) });
};

/** Tools over spies: a page that is always down (it throws), a job that is always pending, a search that finds nothing. */
function researchTools() {
  const fetchPage = vi.fn(async (_input: { url: string }): Promise<string> => {
    throw new Error('HTTP 503 Service Unavailable');
  });
  const checkStatus = vi.fn(async () => ({ job: 'export-7', status: 'pending' }));
  const searchDocs = vi.fn(async ({ query }: { query: string }) => `No documents match "${query}".`);
  const input = <T>(name: string) => jsonSchema<T>({ type: 'object', properties: { [name]: { type: 'string' } }, required: [name], additionalProperties: false });
  const tools = {
    fetch_page: tool({ description: 'Fetch a page', inputSchema: input<{ url: string }>('url'), execute: fetchPage }),
    check_status: tool({ description: 'Poll the export job', inputSchema: input<{ job: string }>('job'), execute: checkStatus }),
    search_docs: tool({ description: 'Search the docs', inputSchema: input<{ query: string }>('query'), execute: searchDocs }),
  } satisfies ToolSet;
  return { fetchPage, checkStatus, searchDocs, tools };
}

function quietLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
}

function run(mock: MockLanguageModelV3, loops: MonitorOptions['loops']) {
  const monitor = createMonitor({ workflow, loops, logger: quietLogger() });
  const reports: LoopReport[] = [];
  monitor.on('loop', ({ report }) => void reports.push(report));
  const tools = researchTools();
  const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sessionId: SESSION }) });
  const result = generateText({ model, tools: tools.tools, system: SYSTEM, prompt: 'Find the warranty of the X200.', stopWhen: stepCountIs(12) });
  return { result, reports, tools, monitor };
}

/** The system text of each prompt the model received, with the agent's own prompt cut off: what Panoptes added. */
const addedToSystem = (mock: MockLanguageModelV3) =>
  mock.doGenerateCalls.map(({ prompt }) => {
    const system = prompt.flatMap((message) => (message.role === 'system' ? [message.content] : [])).join('\n');
    return system.startsWith(SYSTEM) ? system.slice(SYSTEM.length).trim() : `(system replaced) ${system}`;
  });

describe('loop detection through generateText', () => {
  it('a repeated failing call: a hint in the next prompt, then a stronger one, then the run ends with LoopDetectedError', async () => {
    const mock = scripted((_prompt, call) => callTool('fetch_page', { url: 'https://acme.example/x200' }, `f${call}`));
    const { result, reports, tools } = run(mock, true);

    const error = await result.then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(LoopDetectedError.isInstance(error)).toBe(true);
    expect((error as LoopDetectedError).message).toBe(
      `Run stopped in session '${SESSION}': repeated-error loop reached stop at step 5. The run was stopped because the agent kept repeating itself after being asked to change course: \`fetch_page\` failed 5 times in a row with the same arguments.`,
    );

    const added = addedToSystem(mock);
    expect(added).toHaveLength(5); // the sixth call was refused before it reached the model
    expect(added.slice(0, 3)).toEqual(['', '', '']);
    expect(added[3]).toBe(`${GUIDANCE_HEADER}\nYou seem to be repeating yourself: \`fetch_page\` failed 3 times in a row with the same arguments. Take a different approach, or consider that your previous attempts may already have answered the question.`);
    expect(added[4]).toMatch(new RegExp(`^\\${GUIDANCE_HEADER}\\nYou are still repeating yourself after being told so: \`fetch_page\` failed 4 times in a row`));
    expect(tools.fetchPage).toHaveBeenCalledTimes(5);
    expect(reports.filter((report) => report.kind === 'repeated-error').map((report) => [report.detection, report.action])).toEqual([
      [1, 'hint'],
      [2, 'stronger-hint'],
      [3, 'stop'],
    ]);
  });

  it('the agent that heeds the hint is not stopped', async () => {
    const mock = scripted((prompt, call) => {
      if (prompt.some((message) => message.role === 'tool' && message.content.some((part) => part.type === 'tool-result' && part.toolName === 'search_docs'))) {
        return say('I could not find it: the page is down and the docs have nothing on it.');
      }
      const system = prompt[0]?.role === 'system' ? prompt[0].content : '';
      return system.includes('repeating yourself') ? callTool('search_docs', { query: 'X200 warranty' }, 's1') : callTool('fetch_page', { url: 'https://acme.example/x200' }, `f${call}`);
    });
    const { result, reports, tools } = run(mock, true);

    expect((await result).text).toBe('I could not find it: the page is down and the docs have nothing on it.');
    expect(tools.fetchPage).toHaveBeenCalledTimes(3);
    expect(tools.searchDocs).toHaveBeenCalledTimes(1);
    expect(reports.map((report) => `${report.kind} ${report.action}`)).toEqual(['repeated-error hint']);
  });

  it('semantic: a rephrased search, close by the embedder, gets a hint in the next prompt', async () => {
    // The test chooses the similarities: the two rephrasings are 0.99 alike, the first query unlike both.
    const embedder = createFakeEmbedder({
      vectors: {
        'search_docs({"query":"X200 manual"})': [0, 1, 0],
        'search_docs({"query":"X200 warranty"})': [1, 0, 0],
        'search_docs({"query":"how long is the X200 guaranteed"})': [0.99, 0.141, 0],
      },
    });
    const queries = ['X200 manual', 'X200 warranty', 'how long is the X200 guaranteed'];
    const mock = scripted((_prompt, call) => (call < queries.length ? callTool('search_docs', { query: queries[call]! }, `s${call}`) : say('The docs do not say.')));
    const { result, reports } = run(mock, { embedder });

    expect((await result).text).toBe('The docs do not say.');
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ kind: 'semantic', action: 'hint', evidence: { steps: [2, 3] } });
    expect(reports[0]!.evidence.similarity).toBeCloseTo(0.99, 2);
    expect(addedToSystem(mock)).toEqual([
      '',
      '',
      '',
      `${GUIDANCE_HEADER}\nYou seem to be repeating yourself: your latest step is almost the same as one you took just before. Take a different approach, or consider that your previous attempts may already have answered the question.`,
    ]);
  });

  describe('near-misses stay quiet', () => {
    /** Polls a job six times with the same answer, then reports. */
    const poller = () => scripted((_prompt, call) => (call < 6 ? callTool('check_status', { job: 'export-7' }, `p${call}`) : say('The export is still running.')));

    it('polling an exempt tool: no hint, no loop, the run ends with the answer', async () => {
      const mock = poller();
      const { result, reports, tools } = run(mock, { exemptTools: ['check_status'] });
      expect((await result).text).toBe('The export is still running.');
      expect(tools.checkStatus).toHaveBeenCalledTimes(6);
      expect(reports).toEqual([]);
      expect(addedToSystem(mock)).toEqual(['', '', '', '', '', '', '']);
    });

    it('(the same polling, not exempt, is a repeated action: the exemption is what keeps it quiet)', async () => {
      const mock = poller();
      const { result, reports } = run(mock, true);
      // Six identical polls: hint at the 4th, stronger at the 5th, and the 6th ends the run.
      await expect(result).rejects.toSatisfy((error) => LoopDetectedError.isInstance(error));
      expect(reports.filter((report) => report.kind === 'repeated-action').map((report) => report.action)).toEqual(['hint', 'stronger-hint', 'stop']);
      expect(reports[0]).toMatchObject({ kind: 'repeated-action', action: 'hint', evidence: { repetitions: 4 } });
      expect(addedToSystem(mock)[4]).toContain('you called `check_status` 4 times in a row with the same arguments and got the same result each time');
    });

    it('a retry with a changed argument is a new call, not a repeat', async () => {
      const urls = ['https://acme.example/x200', 'https://acme.example/x200', 'https://acme.example/products/x200', 'https://mirror.acme.example/x200'];
      const mock = scripted((_prompt, call) => (call < urls.length ? callTool('fetch_page', { url: urls[call]! }, `f${call}`) : say('Every copy of the page is down.')));
      const { result, reports, tools } = run(mock, true);
      expect((await result).text).toBe('Every copy of the page is down.');
      expect(tools.fetchPage).toHaveBeenCalledTimes(4);
      expect(reports).toEqual([]);
      expect(addedToSystem(mock).every((added) => added === '')).toBe(true);
    });
  });

  it('panoptesStopCondition in stopWhen ends the tool loop cleanly, instead of a rejection, when a loop reaches stop', async () => {
    const monitor = createMonitor({ workflow, loops: true, logger: quietLogger() });
    const reports: LoopReport[] = [];
    monitor.on('loop', ({ report }) => void reports.push(report));
    const tools = researchTools();
    const mock = scripted((_prompt, call) => callTool('fetch_page', { url: 'https://acme.example/x200' }, `f${call}`));
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sessionId: SESSION }) });
    const result = await generateText({
      model,
      tools: tools.tools,
      system: SYSTEM,
      prompt: 'Find the warranty of the X200.',
      stopWhen: [stepCountIs(12), panoptesStopCondition({ monitor, sessionId: SESSION })],
    });
    // The fifth failure completes the loop at stop: the condition ends the run after that step, no sixth call.
    expect(result.steps).toHaveLength(5);
    expect(mock.doGenerateCalls).toHaveLength(5);
    expect(reports.filter((report) => report.kind === 'repeated-error').map((report) => report.action)).toEqual(['hint', 'stronger-hint', 'stop']);
  });
});
