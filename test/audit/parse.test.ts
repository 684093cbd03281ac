import { describe, expect, it } from 'vitest';
import { ACCEPTED_FORMATS, parseTranscripts, sessionIdOf, transcriptFormat } from '../../src/audit/index.js';

const jsonl = (...lines: unknown[]) => lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');

describe('transcriptFormat', () => {
  it('goes by the extension, and sniffs other names', () => {
    expect(transcriptFormat('a.json', '{}')).toBe('json');
    expect(transcriptFormat('a.JSONL', '[]')).toBe('jsonl');
    expect(transcriptFormat('a.ndjson', '[]')).toBe('jsonl');
    expect(transcriptFormat('a.txt', '  [\n')).toBe('json');
    expect(transcriptFormat('a.log', '{"id":1}')).toBe('jsonl');
  });
});

describe('parseTranscripts: a .json file', () => {
  it('is one session named after the file', () => {
    const { transcripts, problems } = parseTranscripts('[{"role":"user","content":"hi"}]', { file: 'dir/refund-clean.json' });
    expect(problems).toEqual([]);
    expect(transcripts).toEqual([{ id: 'refund-clean', origin: { file: 'dir/refund-clean.json' }, messages: [{ role: 'user', content: 'hi' }], warnings: [] }]);
    expect(sessionIdOf('x/y/z.jsonl')).toBe('z');
  });

  it('may be an object with a messages array (the fine-tuning shape), its id winning', () => {
    expect(parseTranscripts('{"messages":[]}', { file: 'a.json' }).transcripts[0]!.id).toBe('a');
    expect(parseTranscripts('{"id":"s9","messages":[]}', { file: 'a.json' }).transcripts[0]!.id).toBe('s9');
  });

  it('reports text that is not JSON with the line and column of the error', () => {
    const text = '[\n  {"role":"user","content":"hi"}\n  {"role":"assistant","content":"x"}\n]';
    expect(parseTranscripts(text, { file: 'bad.json' })).toEqual({
      transcripts: [],
      problems: [{ file: 'bad.json', line: 3, column: 3, text: "not JSON: Expected ',' or ']' after array element" }],
    });
  });

  it('reports an empty file, and JSON that is not an array of messages', () => {
    expect(parseTranscripts('  \n', { file: 'e.json' }).problems).toEqual([{ file: 'e.json', text: 'not JSON: the file is empty' }]);
    expect(parseTranscripts('{"conversation":[]}', { file: 'o.json' }).problems).toEqual([
      { file: 'o.json', text: 'expected a JSON array of chat messages (or an object with a "messages" array), got an object with keys conversation; ' + ACCEPTED_FORMATS },
    ]);
    expect(parseTranscripts('"hello"', { file: 's.json' }).problems[0]!.text).toBe('expected a JSON array of chat messages (or an object with a "messages" array), got a string; ' + ACCEPTED_FORMATS);
  });

  it('reports a session with a bad message, naming the message index, and drops only that session', () => {
    const { transcripts, problems } = parseTranscripts('[{"role":"user","content":"hi"},{"role":"bot","content":"hello"}]', { file: 'r.json' });
    expect(transcripts).toEqual([]);
    expect(problems).toEqual([{ file: 'r.json', session: 'r', text: "messages[1]: unknown role 'bot'; valid roles: system, developer, user, assistant, tool" }]);
  });

  it('reads an empty conversation as a session without messages', () => {
    expect(parseTranscripts('[]', { file: 'empty.json' }).transcripts).toEqual([{ id: 'empty', origin: { file: 'empty.json' }, messages: [], warnings: [] }]);
  });
});

describe('parseTranscripts: a .jsonl file', () => {
  it('reads one session per line, skipping blank lines and tolerating CRLF', () => {
    const text = jsonl({ id: 'a', messages: [{ role: 'user', content: 'hi' }] }, '', { id: 42, messages: [] }).replace(/\n/g, '\r\n');
    const { transcripts, problems } = parseTranscripts(text, { file: 'chats.jsonl' });
    expect(problems).toEqual([]);
    expect(transcripts.map((t) => [t.id, t.origin.line, t.messages.length])).toEqual([
      ['a', 1, 1],
      ['42', 3, 0],
    ]);
  });

  it('names a session without an id after its file and line', () => {
    expect(parseTranscripts(jsonl({ messages: [] }, { messages: [] }), { file: 'ft.jsonl' }).transcripts.map((t) => t.id)).toEqual(['ft:1', 'ft:2']);
  });

  it('reports each bad line with its number and reads the others', () => {
    const text = jsonl(
      { id: 'ok', messages: [] },
      '{"id": "cut", "messages": [',
      ['not', 'a', 'session'],
      { id: 'no-messages', turns: [] },
      { id: { nested: true }, messages: [] },
      { id: 'role', messages: [{ role: 'customer', content: 'x' }] },
      { id: 'ok2', messages: [] },
    );
    const { transcripts, problems } = parseTranscripts(text, { file: 'mixed.jsonl' });
    expect(transcripts.map((t) => t.id)).toEqual(['ok', 'ok2']);
    expect(problems).toEqual([
      { file: 'mixed.jsonl', line: 2, column: 28, text: 'not JSON: Unexpected end of JSON input' },
      { file: 'mixed.jsonl', line: 3, text: 'expected a session object { "id", "messages": [...] }, got an array' },
      { file: 'mixed.jsonl', line: 4, text: 'expected a session object { "id", "messages": [...] }, got an object without a "messages" array with keys id, turns' },
      { file: 'mixed.jsonl', line: 5, text: 'id: expected a string or a number, got an object' },
      { file: 'mixed.jsonl', line: 6, session: 'role', text: "messages[0]: unknown role 'customer'; valid roles: system, developer, user, assistant, tool" },
    ]);
  });

  it('reports an empty file', () => {
    expect(parseTranscripts('\n\n', { file: 'none.jsonl' }).problems).toEqual([{ file: 'none.jsonl', text: 'no sessions: the file is empty' }]);
  });
});

describe('parsing cost', () => {
  it('reads a 10 MB message in linear time and keeps it whole', () => {
    const huge = 'refund '.repeat(1_500_000); // 10.5 MB
    const text = JSON.stringify([{ role: 'user', content: 'hi' }, { role: 'assistant', content: huge }]);
    const started = performance.now();
    const { transcripts } = parseTranscripts(text, { file: 'huge.json' });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(transcripts[0]!.messages[1]!.content).toHaveLength(huge.length);
  });

  it('splits a JSONL file of many lines in linear time', () => {
    const line = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(100) }] });
    const text = Array.from({ length: 50_000 }, () => line).join('\n');
    const started = performance.now();
    expect(parseTranscripts(text, { file: 'many.jsonl' }).transcripts).toHaveLength(50_000);
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});
