import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors/index.js';
import { createLoopDetector, type LoopDetectorOptions } from '../../src/loops/index.js';
import { createFakeEmbedder } from '../../src/testing/index.js';

const build = (options: unknown) => () => createLoopDetector(options as LoopDetectorOptions);

describe('options are checked when the detector is built', () => {
  it.each([
    [{ threshold: 1.5 }, 'Invalid option `threshold`: received 1.5. Pass a cosine similarity in (0, 1]; the default is 0.95.'],
    [{ threshold: 0 }, 'Invalid option `threshold`: received 0. Pass a cosine similarity in (0, 1]; the default is 0.95.'],
    [{ window: 0 }, 'Invalid option `window`: received 0. Pass a whole number of steps of at least 1; the default is 5.'],
    [{ window: 2.5 }, 'Invalid option `window`: received 2.5.'],
    [{ ttlMs: -1 }, 'Invalid option `ttlMs`: received -1. Pass a positive number of milliseconds; the default is 3600000 (one hour).'],
    [{ timeoutMs: Number.NaN }, 'Invalid option `timeoutMs`: received null. Pass a positive number of milliseconds; the default is 50.'],
    [{ maxSessions: 0 }, 'Invalid option `maxSessions`: received 0. Pass a whole number of sessions of at least 1; the default is 10000.'],
    [{ dimensions: 0 }, 'Invalid option `dimensions`: received 0.'],
    [{ repeatedAction: 1 }, 'Invalid option `repeatedAction`: received 1. Pass a whole number of at least 2, or false to turn this check off; the default is 4.'],
    [{ repeatedError: true }, 'Invalid option `repeatedError`: received true.'],
    [{ monologue: '3' }, 'Invalid option `monologue`: received "3".'],
    [{ alternation: 3 }, 'Invalid option `alternation`: received 3. Pass a whole number of at least 4, or false to turn this check off; the default is 6.'],
    [{ toolCycle: { maxLength: 50 } }, 'Invalid option `toolCycle.maxLength`: received 50. Pass a whole number of calls from 1 to 20; the default is 5.'],
    [{ toolCycle: { repetitions: 1 } }, 'Invalid option `toolCycle.repetitions`: received 1.'],
    [{ toolCycle: true }, 'Invalid option `toolCycle`: received true. Pass { maxLength, repetitions }, or false to turn this check off.'],
    [{ repeatedText: { chunkSize: 0 } }, 'Invalid option `repeatedText.chunkSize`: received 0.'],
    [{ repeatedText: { spacing: 0 } }, 'Invalid option `repeatedText.spacing`: received 0. Pass a whole number of characters of at least 1, or Infinity for no limit; the default is 250.'],
    [{ repeatedActionWarning: 1 }, 'Invalid option `repeatedActionWarning`: received 1.'],
    [{ repeatedLine: 1 }, 'Invalid option `repeatedLine`: received 1. Pass a whole number of at least 2, or false to turn this check off; the default is 5.'],
    [{ unknownTool: { hintAt: 3, stopAt: 2 } }, 'Invalid option `unknownTool.stopAt`: received 2. Pass a number no smaller than unknownTool.hintAt (3).'],
    [{ unknownTool: true }, 'Invalid option `unknownTool`: received true.'],
    [{ tools: 'search' }, 'Invalid option `tools`: received "search".'],
    [{ unchangedResult: 1 }, 'Invalid option `unchangedResult`: received 1.'],
    [{ condensation: 0 }, 'Invalid option `condensation`: received 0.'],
    [{ scopeToUserTurn: 'yes' }, 'Invalid option `scopeToUserTurn`: received "yes". Pass true or false.'],
    [{ exempt: [{ tool: '' }] }, 'Invalid option `exempt`: received {"tool":""}.'],
    [{ exemptTools: 'poll' }, 'Invalid option `exemptTools`: received "poll". Pass an array of tool names, such as [\'check_status\'], or [] for none.'],
    [{ ignoreKeys: [1] }, 'Invalid option `ignoreKeys`: received [1].'],
    [{ volatilePatterns: ['uuid'] }, 'Invalid option `volatilePatterns`: received ["uuid"].'],
    [{ normalizeArguments: 'yes' }, 'Invalid option `normalizeArguments`: received "yes". Pass true or false.'],
    [{ hint: '' }, 'Invalid option `hint`: received "". Pass a non-empty text; `{detail}` in it is replaced by what repeated.'],
    [{ escalation: { strongerHintAt: 3, stopAt: 2 } }, 'Invalid option `escalation.stopAt`: received 2. Pass a number no smaller than escalation.strongerHintAt (3).'],
    [{ escalation: { stopAt: 0 } }, 'Invalid option `escalation.stopAt`: received 0.'],
    [{ embedder: { embed: () => [] } }, 'Invalid option `embedder`: received {}. Pass an object with embedQuery(text) and embedDocuments(texts)'],
    [{ longWindow: { size: 100 } }, 'Invalid option `longWindow`: received {"size":100}. The long window compares embeddings: pass an `embedder` too, or omit `longWindow`.'],
    [{ clock: Date }, 'Invalid option `clock`: received a function.'],
    [{ logger: {} }, 'Invalid option `logger`: received {}. Pass an object with warn(message), such as console.'],
  ])('%j', (options, message) => {
    let caught: unknown;
    try {
      build(options)();
    } catch (error) {
      caught = error;
    }
    expect(InvalidOptionError.isInstance(caught)).toBe(true);
    expect((caught as Error).message.startsWith(message)).toBe(true);
  });

  it('checks the long window when there is an embedder', () => {
    const embedder = createFakeEmbedder();
    expect(build({ embedder, longWindow: { size: 0 } })).toThrow('Invalid option `longWindow.size`: received 0.');
    expect(build({ embedder, longWindow: { size: 10, kind: 'annoy' } })).toThrow("Invalid option `longWindow.kind`: received \"annoy\". Pass 'auto', 'hnsw' or 'brute-force'; the default is 'auto'.");
    expect(build({ embedder, longWindow: { size: 10, hnsw: { m: -1 } } })).toThrow('Invalid option `longWindow.hnsw.m`: received -1.');
    expect(build({ embedder, longWindow: { size: 10, kind: 'hnsw', hnsw: { efSearch: 50 } } })).not.toThrow();
  });

  it('names a misspelt option and suggests the right one', () => {
    expect(build({ treshold: 0.9 })).toThrow(
      /^Invalid option `treshold`: received 0\.9\. createLoopDetector has no such option \(did you mean 'threshold'\?\)\. Known options: embedder, threshold,/,
    );
    expect(build({ exemptTool: ['poll'] })).toThrow(/no such option \(did you mean 'exemptTools'\?\)/);
    expect(build({ colour: 'red' })).toThrow(/^Invalid option `colour`: received "red"\. createLoopDetector has no such option\. Known options/);
  });

  it('rejects a non-object and accepts none at all', () => {
    expect(build(null)).toThrow('Invalid option `options`: received null. Pass an options object, such as {} for the defaults.');
    expect(() => createLoopDetector()).not.toThrow();
    expect(build({ repeatedAction: false, repeatedError: false, monologue: false, alternation: false, toolCycle: false, repeatedText: false })).not.toThrow();
  });
});
