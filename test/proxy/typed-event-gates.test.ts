/**
 * The Responses API and Anthropic Messages stream gates with the monitor's real text watch, event by event, for any
 * split of the text into deltas (property tests): a compliant answer goes out byte for byte, held or not; a leaking
 * one never shows the text after its match, and ends as a well-formed stream of its API.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMonitor } from '../../src/index.js';
import { MessagesStreamGate } from '../../src/proxy/routes/anthropic/stream-gate.js';
import { ResponsesStreamGate } from '../../src/proxy/routes/responses/stream-gate.js';
import type { AnswerGate, GateOptions } from '../../src/proxy/routes/route.js';
import { anthropicEvent, anthropicEventsOf, anthropicJson, responseEvent, responseEventsOf, responseJson } from './fake-formats.js';
import { quietLogger } from './helpers.js';
import { LEAK, leakCritical, SECRET } from './withheld-helpers.js';

type Item = Record<string, unknown>;
const HOLD = { maxChars: 1_000_000, maxMs: 60_000 };
/** Text the workflow's patterns for leaking states would match. */
const LEAKING = /internal (notes?|system|policy document)|system prompt/i;

/** The two routes: their gate, and a turn's events with its text cut into pieces of the given sizes. */
const ROUTES = [
  {
    name: 'the Responses API',
    gate: (options: GateOptions) => new ResponsesStreamGate(options),
    events: (text: string, sizes: number[]) => withPieces(responseEventsOf(responseJson({ content: text })), 'response.output_text.delta', text, sizes).map((event, at) => ({ ...event, sequence_number: at })),
    write: responseEvent,
    first: 'response.created',
    last: 'response.completed',
  },
  {
    name: 'Anthropic Messages',
    gate: (options: GateOptions) => new MessagesStreamGate(options),
    events: (text: string, sizes: number[]) => withPieces(anthropicEventsOf(anthropicJson({ content: text })), 'content_block_delta', text, sizes),
    write: anthropicEvent,
    first: 'message_start',
    last: 'message_stop',
  },
];

/** The events with the text deltas (of `type`) replaced by `text` in pieces of `sizes`, in turn. */
function withPieces(events: Item[], type: string, text: string, sizes: number[]): Item[] {
  const first = events.findIndex((event) => event.type === type);
  const template = events[first]!;
  const pieces: Item[] = [];
  for (let at = 0, next = 0; at < text.length; next++) {
    const size = sizes[next % sizes.length]!;
    const piece = text.slice(at, at + size);
    pieces.push('delta' in template && typeof template.delta === 'string' ? { ...template, delta: piece } : { ...template, delta: { type: 'text_delta', text: piece } });
    at += size;
  }
  return [...events.slice(0, first), ...pieces, ...events.filter((event, at) => at > first && event.type !== type)];
}

/** The text of received events: their text deltas, in order. */
function textOf(received: Item[]): string {
  return received.map((event) => (event.type === 'response.output_text.delta' ? String(event.delta) : event.type === 'content_block_delta' && (event.delta as Item).type === 'text_delta' ? String((event.delta as Item).text) : '')).join('');
}

async function textWatch() {
  return (await createMonitor({ workflow: leakCritical, logger: quietLogger() }).watchText('s1'))!;
}

describe.each(ROUTES)('$name stream gate with the text watch', (route) => {
  const sizes = fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 4 });
  const benign = fc.string({ minLength: 1, maxLength: 80 }).filter((text) => !LEAKING.test(text));

  it('passes a compliant answer byte for byte, held or not, for any split of its text', async () => {
    await fc.assert(
      fc.asyncProperty(benign, sizes, fc.boolean(), async (text, split, hold) => {
        const events = route.events(text, split);
        const gate: AnswerGate = route.gate({ maxHeldChars: 1 << 20, textWatch: await textWatch(), ...(hold ? { holdText: HOLD } : {}) });
        let out = '';
        for (const event of events) out += gate.push(JSON.stringify(event)) ?? '';
        expect(gate.textCut).toBeUndefined();
        expect(gate.holding).toBe(hold);
        out += gate.release(new Map());
        expect(out).toBe(events.map(route.write).join(''));
      }),
      { numRuns: 150 },
    );
  });

  it('replaces an answer held whole (withheld once classified at its end) by a well-formed one of the replacement alone', async () => {
    const gate: AnswerGate = route.gate({ maxHeldChars: 1 << 20, textWatch: await textWatch(), holdText: HOLD });
    for (const event of route.events('Nothing the patterns match, yet withheld.', [7])) expect(gate.push(JSON.stringify(event))).toBeUndefined();
    expect(gate.holding).toBe(true);
    expect(gate.deliveredCut!('REPLACED')).toEqual({ content: 'REPLACED', toolCalls: [] });
    const received = gate.releaseCut!('REPLACED').split('\n\n').filter(Boolean).map((event) => JSON.parse(event.slice(event.indexOf('data: ') + 6)) as Item);
    expect(textOf(received)).toBe('REPLACED');
    expect(received[0]!.type).toBe(route.first);
    expect(received.at(-1)!.type).toBe(route.last);
  });

  it('never shows the text after the match, and ends with the replacement as a well-formed stream, for any split', async () => {
    await fc.assert(
      fc.asyncProperty(benign, sizes, fc.boolean(), async (prefix, split, hold) => {
        const text = `${prefix} ${LEAK}`;
        const events = route.events(text, split);
        const gate: AnswerGate = route.gate({ maxHeldChars: 1 << 20, textWatch: await textWatch(), ...(hold ? { holdText: HOLD } : {}) });
        let out = '';
        for (const event of events) {
          out += gate.push(JSON.stringify(event)) ?? '';
          if (gate.done) break;
        }
        expect(gate.textCut).toBeDefined();
        expect(gate.end).toBe('done');
        expect(gate.calls()).toEqual([]);
        out += gate.releaseCut!('REPLACED');
        expect(out).not.toContain(SECRET);
        const received = out.split('\n\n').filter(Boolean).map((event) => JSON.parse(event.slice(event.indexOf('data: ') + 6)) as Item);
        expect(received.at(-1)!.type).toBe(route.last);
        // The client's text: what went out before the match (nothing, held), then the replacement.
        const shown = textOf(received);
        expect(shown).toMatch(/REPLACED$/);
        const before = shown.slice(0, -'REPLACED'.length).replace(/\n\n$/, '');
        if (hold) expect(before).toBe('');
        expect(text.startsWith(before)).toBe(true);
        expect(LEAKING.test(before)).toBe(false);
        expect(gate.deliveredCut!('REPLACED').content).toMatch(hold ? /^REPLACED$/ : /REPLACED$/);
      }),
      { numRuns: 150 },
    );
  });
});
