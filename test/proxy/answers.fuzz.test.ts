/**
 * Property: whatever shape the upstream gives an answer that carries a refused call (JSON or SSE, any content type,
 * any stream flag, the call in any choice, as `tool_calls`, the legacy `function_call` or a custom tool, its name in
 * pieces, before or after the finish chunk, its name spelled another way, an error status), the refused call never
 * reaches the client in any form a client could read, and the proxy never fails on it (`proxy_internal_error`). Real HTTP on loopback.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkData, completionWith, sse } from './fake-upstream.js';
import { OPENING, TOOLS, startProxy, type Running } from './helpers.js';
import { callNamesIn, REFUND, REFUND_VARIANTS } from './answer-shapes.js';

interface Shape {
  requestStream: boolean | 'true' | undefined;
  offerTools: boolean;
  form: 'json' | 'sse';
  contentType: string | undefined;
  status: number;
  choices: number;
  refusedChoice: number;
  carrier: 'tool_calls' | 'function_call' | 'custom';
  /** Where the calls go: a message (whole, in a chunk too) or a delta (in pieces; in a completion, whole). */
  where: 'message' | 'delta';
  name: string;
  alsoAllowed: boolean;
  afterFinish: boolean;
  pieceSize: number;
  text: string;
  leading: string;
  done: boolean;
}

const shapes: fc.Arbitrary<Shape> = fc
  .record({
    requestStream: fc.constantFrom(true, false, undefined, 'true' as const),
    offerTools: fc.boolean(),
    form: fc.constantFrom('json' as const, 'sse' as const),
    contentType: fc.constantFrom('application/json', 'text/event-stream', 'text/plain', 'application/octet-stream', undefined),
    status: fc.constantFrom(200, 200, 200, 201, 400, 500),
    choices: fc.integer({ min: 1, max: 3 }),
    refusedChoice: fc.nat(2),
    carrier: fc.constantFrom('tool_calls' as const, 'function_call' as const, 'custom' as const),
    where: fc.constantFrom('message' as const, 'delta' as const),
    name: fc.constantFrom(REFUND, ...REFUND_VARIANTS),
    alsoAllowed: fc.boolean(),
    afterFinish: fc.boolean(),
    pieceSize: fc.integer({ min: 1, max: 13 }),
    text: fc.constantFrom('', 'Sure.'),
    leading: fc.constantFrom('', '\n', '  \r\n', '\uFEFF'),
    done: fc.boolean(),
  })
  .map((shape) => ({ ...shape, refusedChoice: shape.refusedChoice % shape.choices }));

/** The call entries (or legacy call) a choice's message carries in this shape, whole. */
function carriers(shape: Shape, choice: number): Record<string, unknown> {
  const calls: Array<Record<string, unknown>> = [];
  if (choice === shape.refusedChoice) {
    if (shape.carrier === 'function_call') return { function_call: { name: shape.name, arguments: '{"order":"A-1042"}' } };
    calls.push(shape.carrier === 'custom' ? { id: 'call_r', type: 'custom', custom: { name: shape.name, input: 'A-1042' } } : { id: 'call_r', type: 'function', function: { name: shape.name, arguments: '{"order":"A-1042"}' } });
  }
  // An allowed call after the refused one: checked second, it cannot make the refund due.
  if (choice === 0 && shape.alsoAllowed) calls.push({ id: 'call_v', type: 'function', function: { name: 'verify_identity', arguments: '{}' } });
  return calls.length > 0 ? { tool_calls: calls } : {};
}

/** A string in pieces of `size`. */
const pieces = (text: string, size: number) => text.match(new RegExp(`[^]{1,${size}}`, 'gu')) ?? [''];

/** The SSE events of one choice's calls: whole in a chunk's message, or in delta pieces, names and arguments split. */
function callEvents(shape: Shape, choice: number): string[] {
  const whole = carriers(shape, choice);
  if (shape.where === 'message') return Object.keys(whole).length > 0 ? [chunkData([{ index: choice, delta: {}, message: { role: 'assistant', ...whole } }])] : [];
  const { tool_calls: calls, function_call: legacy } = whole as { tool_calls?: Array<Record<string, any>>; function_call?: { name: string; arguments: string } };
  const events: string[] = [];
  if (legacy) {
    for (const piece of pieces(legacy.name, shape.pieceSize)) events.push(chunkData([{ index: choice, delta: { function_call: { name: piece } } }]));
    events.push(chunkData([{ index: choice, delta: { function_call: { arguments: legacy.arguments } } }]));
  }
  (calls ?? []).forEach((call, index) => {
    const part = call.type === 'custom' ? 'custom' : 'function';
    const [first, ...rest] = pieces(call[part].name, shape.pieceSize);
    events.push(chunkData([{ index: choice, delta: { tool_calls: [{ index, id: call.id, type: call.type, [part]: { name: first } }] } }]));
    for (const piece of rest) events.push(chunkData([{ index: choice, delta: { tool_calls: [{ index, [part]: { name: piece } }] } }]));
    const args = part === 'custom' ? { input: call.custom.input } : { arguments: call.function.arguments };
    events.push(chunkData([{ index: choice, delta: { tool_calls: [{ index, [part]: args }] } }]));
  });
  return events;
}

function bodyOf(shape: Shape): string {
  const choices = Array.from({ length: shape.choices }, (_unused, choice) => choice);
  if (shape.form === 'json') {
    const message = (choice: number) => ({ role: 'assistant', content: shape.text || null, ...carriers(shape, choice) });
    const completion = completionWith(choices.map((choice) => ({ message: message(choice), finish_reason: 'tool_calls' })));
    // A chunk's shape sent as a completion: the calls in a delta beside an empty message.
    if (shape.where === 'delta') completion.choices = (completion.choices as Array<Record<string, unknown>>).map((entry, choice) => ({ ...entry, message: { role: 'assistant', content: shape.text || null }, delta: message(choice) }));
    return shape.leading + JSON.stringify(completion);
  }
  const events = choices.map((choice) => chunkData([{ index: choice, delta: { role: 'assistant', content: shape.text } }]));
  const calls = choices.flatMap((choice) => callEvents(shape, choice));
  if (!shape.afterFinish) events.push(...calls);
  events.push(chunkData(choices.map((choice) => ({ index: choice, delta: {}, finish_reason: 'tool_calls' }))));
  if (shape.afterFinish) events.push(...calls);
  events.push(chunkData([], { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
  if (shape.done) events.push('[DONE]');
  return shape.leading + sse(events);
}

let running: Running;
let current: Shape;
let session = 0;

beforeAll(async () => {
  running = await startProxy((_body, _request, response) => {
    response.writeHead(current.status, current.contentType === undefined ? {} : { 'content-type': current.contentType });
    response.end(bodyOf(current));
    return 'handled';
  });
});
afterAll(() => running.close());

describe('answers of any shape', () => {
  it('never carry a refused call to the client, and never make the proxy fail (property)', async () => {
    await fc.assert(
      fc.asyncProperty(shapes, async (shape) => {
        current = shape;
        const response = await fetch(`${running.url}/v1/chat/completions`, {
          method: 'POST',
          // A fresh session each run, so the refund always comes before the identity check.
          headers: { 'content-type': 'application/json', 'x-panoptes-session-id': `fuzz-${session++}` },
          body: JSON.stringify({ model: 'x', messages: OPENING, ...(shape.offerTools ? { tools: TOOLS } : {}), ...(shape.requestStream === undefined ? {} : { stream: shape.requestStream }) }),
        });
        const body = await response.text();
        expect(body).not.toContain('proxy_internal_error'); // a failure inside the proxy (the upstream's own 500s pass)
        const names = callNamesIn(body);
        expect(names).not.toContain(shape.name);
        expect(names).not.toContain(REFUND);
        if (shape.requestStream === 'true') expect(response.status).toBe(400);
      }),
      { numRuns: Number(process.env.PANOPTES_FUZZ_RUNS ?? 150) }, // more for a deeper search
    );
  });
});
