import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { lineWriter } from '../../src/cli/line-writer.js';

/** A stream that records what it is given and lets a test raise the error a closed pipe raises. */
function fakeStream() {
  const written: string[] = [];
  const stream = Object.assign(new EventEmitter(), { destroyed: false, write: (text: string) => written.push(text) });
  const fail = (code: string) => stream.emit('error', Object.assign(new Error(`write ${code}`), { code }));
  return { stream, written, fail };
}

describe('lineWriter (issue 13, item 7: `panoptes validate … | head -1`)', () => {
  it('writes lines until the reader closes the pipe, then drops them without an error', () => {
    const { stream, written, fail } = fakeStream();
    const write = lineWriter(stream);
    write('first');
    fail('EPIPE');
    write('second');
    expect(written).toEqual(['first\n']);
  });

  it('drops lines once the stream is destroyed', () => {
    const { stream, written } = fakeStream();
    const write = lineWriter(stream);
    stream.destroyed = true;
    write('lost');
    expect(written).toEqual([]);
  });

  it('rethrows any other stream error, as Node would have', () => {
    const { stream, fail } = fakeStream();
    lineWriter(stream);
    expect(() => fail('EIO')).toThrow('write EIO');
  });
});
