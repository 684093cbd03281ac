import { describe, expect, it } from 'vitest';
import { createLineCounter } from '../../src/loops/repeated-line.js';
import { detectorFor, kinds, runSteps } from './helpers.js';

const THOUGHT = 'Wait, let me re-check the config file first.';

/** Issue 15: a line repeated across a response or its reasoning, not back to back, any case or spacing. */
describe('repeated-line', () => {
  it('fires when one line appears 5 times in the reasoning, in any case or spacing, with other lines between', () => {
    const reasoning = Array.from({ length: 5 }, (_, i) => `${i % 2 ? THOUGHT.toUpperCase() : `  ${THOUGHT.replace(/ /g, '   ')}`}\nStep ${i}: looking at line ${i * 10}.`).join('\n');
    const [report] = runSteps(detectorFor(), [{ text: 'Here is the fix.', reasoning }]);
    expect(report).toMatchObject({ kind: 'repeated-line', evidence: { repetitions: 5, text: THOUGHT.toLowerCase() } });
  });

  it('counts the response and its reasoning together, and not 4 times', () => {
    expect(kinds(runSteps(detectorFor(), [{ text: `${THOUGHT}\n${THOUGHT}`, reasoning: `${THOUGHT}\nok\n${THOUGHT}\n${THOUGHT}` }]))).toEqual(['repeated-line']);
    expect(kinds(runSteps(detectorFor(), [{ text: `${THOUGHT}\n${THOUGHT}`, reasoning: `${THOUGHT}\nok\n${THOUGHT}` }]))).toEqual(['-']);
  });

  it('does not count code, table rows, list items or short lines', () => {
    const code = `\`\`\`\n${Array(8).fill('expect(result).toEqual(expected);').join('\n')}\n\`\`\``;
    const table = Array(8).fill('| status | pending | pending |').join('\n');
    const list = Array(8).fill('- check the configuration file').join('\n');
    const short = Array(8).fill('Done.').join('\n');
    expect(kinds(runSteps(detectorFor(), [{ text: [code, table, list, short].join('\n') }]))).toEqual(['-']);
  });

  it('is streaming-safe: a line split across chunks is one line', () => {
    const counter = createLineCounter(5);
    const stream = `${THOUGHT}\n`.repeat(5);
    for (let i = 0; i < stream.length; i += 7) counter.push(stream.slice(i, i + 7));
    counter.end();
    expect(counter.found).toEqual({ line: THOUGHT.toLowerCase(), count: 5 });
  });

  it('takes its threshold as an option and can be turned off', () => {
    const text = `${THOUGHT}\n`.repeat(3);
    expect(kinds(runSteps(detectorFor({ repeatedLine: 3 }), [{ text }]))).toEqual(['repeated-line']);
    expect(kinds(runSteps(detectorFor({ repeatedLine: false, monologue: false }), [{ text: `${THOUGHT}\n`.repeat(9) }]))).toEqual(['-']);
  });
});
