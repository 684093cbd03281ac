import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ACCEPTED_FORMATS, parseTranscripts } from '../../src/audit/index.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/transcripts/', import.meta.url));
const parse = (name: string) => parseTranscripts(readFileSync(`${FIXTURES}${name}`, 'utf8'), { file: name });

/** The refund conversation every sample holds, in the core's messages. */
const REFUND = [
  { role: 'system', content: 'You are the support assistant.' },
  { role: 'user', content: 'Refund order A1 please.' },
  { role: 'assistant', content: 'Let me verify you first.', toolCalls: [{ id: 'c1', name: 'verify_identity', args: { email: 'a@example.com' } }] },
  { role: 'tool', content: '{"verified":true}', toolCallId: 'c1' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c2', name: 'issue_refund', args: { order_id: 'A1' } }] },
  { role: 'tool', content: 'refunded', toolCallId: 'c2' },
  { role: 'assistant', content: 'Your refund is on its way. Is there anything else?' },
];
const withoutNames = (messages: unknown[]) => messages.map((message) => ({ ...(message as object), name: undefined }));

describe('transcript importers (detected by shape)', () => {
  it('reads AI SDK ModelMessage[]: tool-call parts become calls, each tool-result a tool message', () => {
    const { transcripts, problems } = parse('ai-sdk-messages.json');
    expect(problems).toEqual([]);
    expect(withoutNames(transcripts[0]!.messages)).toEqual(withoutNames(REFUND));
    expect(transcripts[0]!.id).toBe('ai-sdk-messages');
  });

  it('reads a LangSmith LLM run export: serialised input messages and the generation', () => {
    const { transcripts, problems } = parse('langsmith-run.json');
    expect(problems).toEqual([]);
    expect(transcripts[0]!.id).toBe('run-7f3a');
    expect(withoutNames(transcripts[0]!.messages)).toEqual(withoutNames(REFUND));
  });

  it('reads LangGraph runs from JSONL, one per line, taking the output messages (which hold the inputs)', () => {
    const { transcripts, problems } = parse('langsmith-runs.jsonl');
    expect(problems).toEqual([]);
    expect(transcripts.map((transcript) => [transcript.id, transcript.messages.map((message) => message.role)])).toEqual([['run-graph-1', ['user', 'assistant', 'tool', 'assistant']]]);
    expect(transcripts[0]!.messages[1]).toEqual({ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'verify_identity', args: {} }] });
  });

  it('reads an OTLP JSON trace: one session per trace, from the GenAI span that ended last', () => {
    const { transcripts, problems } = parse('otel-genai-trace.json');
    expect(problems).toEqual([]);
    expect(transcripts).toHaveLength(1);
    expect(transcripts[0]!.id).toBe('5b8efff798038103d269b633813fc60c');
    expect(withoutNames(transcripts[0]!.messages)).toEqual(withoutNames(REFUND));
  });

  it('says which formats it accepts, and when a trace has no GenAI spans', () => {
    expect(parseTranscripts('{"conversation": []}', { file: 'x.json' }).problems[0]!.text).toContain(ACCEPTED_FORMATS);
    expect(ACCEPTED_FORMATS).toMatch(/OpenAI chat messages.*AI SDK ModelMessage\[\].*LangChain\/LangSmith run exports.*OpenTelemetry GenAI traces/);
    expect(parseTranscripts('{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t", "attributes": []}]}]}]}', { file: 't.json' }).problems).toEqual([
      { file: 't.json', text: 'an OpenTelemetry trace export without GenAI spans: no span has gen_ai.input.messages or gen_ai.output.messages' },
    ]);
  });
});
