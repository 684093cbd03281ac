/** A loop session as JSON (for stores shared between processes, issue 18): the semantic window survives the trip. */
import { describe, expect, it } from 'vitest';
import { createFakeEmbedder } from '../../src/testing/index.js';
import { call, detectorFor, say } from './helpers.js';

const at = (degrees: number) => [Math.cos((degrees * Math.PI) / 180), Math.sin((degrees * Math.PI) / 180)];

describe('exportSession / importSession', () => {
  it('carry the semantic window (embeddings included) to another detector, which then finds the loop', async () => {
    const vectors = { 'search flights to Paris': at(0), 'look up flights going to Paris': at(14) }; // cosine 0.970
    const first = detectorFor({ embedder: createFakeEmbedder({ vectors }) });
    await first.observe('s1', say('search flights to Paris'));
    const snapshot = JSON.parse(JSON.stringify(first.exportSession!('s1'))); // through JSON, as a store keeps it

    const second = detectorFor({ embedder: createFakeEmbedder({ vectors }) });
    second.importSession!('s1', snapshot);
    const report = await second.observe('s1', say('look up flights going to Paris'));
    expect(report).toMatchObject({ kind: 'semantic', step: 2, evidence: { steps: [1, 2] } });
    expect(report!.evidence.similarity).toBeCloseTo(0.97, 2);

    const fresh = detectorFor({ embedder: createFakeEmbedder({ vectors }) });
    expect(await fresh.observe('s1', say('look up flights going to Paris'))).toBeNull();
  });

  it('two detectors handing the session over at every step report what one detector does (structural checks)', async () => {
    const poll = { toolCalls: [call('check_status', { order: 1 })] };
    const result = { toolResults: [{ name: 'check_status', content: 'pending' }] };
    const steps = Array.from({ length: 6 }, () => [poll, result]).flat();
    const alone = detectorFor({});
    const expected = [];
    for (const step of steps) expected.push((await alone.observe('s1', step))?.kind ?? null);
    expect(expected.some((kind) => kind !== null)).toBe(true);

    const pair = [detectorFor({}), detectorFor({})];
    const handedOver = [];
    let snapshot: unknown;
    for (const [index, step] of steps.entries()) {
      const detector = pair[index % 2]!;
      detector.importSession!('s1', snapshot);
      handedOver.push((await detector.observe('s1', step))?.kind ?? null);
      snapshot = JSON.parse(JSON.stringify(detector.exportSession!('s1'))); // through JSON, as a store keeps it
    }
    expect(handedOver).toEqual(expected);

    const second = pair[1]!;
    second.importSession!('s1', { not: 'a snapshot' });
    expect(second.exportSession!('s1')).toBeUndefined();
  });

  it('keep each detector\'s long window across reads, caught up with the steps taken by the other', async () => {
    const vectors = { 'search flights to Paris': at(0), 'what is the weather': at(90), 'look up flights going to Paris': at(14), 'book a hotel': at(45) };
    const options = { embedder: createFakeEmbedder({ vectors }), window: 1, longWindow: { size: 10 } };
    const steps = ['search flights to Paris', 'what is the weather', 'look up flights going to Paris'];
    /** Steps handed over between detectors as a shared store does: import before each step, export after. */
    const run = async (order: number[], pair = [detectorFor(options), detectorFor(options)]) => {
      let snapshot: unknown;
      const reports = [];
      for (const [index, text] of steps.entries()) {
        const detector = pair[order[index]!]!;
        detector.importSession!('s1', snapshot);
        reports.push(await detector.observe('s1', say(text)));
        snapshot = JSON.parse(JSON.stringify(detector.exportSession!('s1')));
      }
      return reports;
    };
    // One detector reading its own session back every step (a single proxy on Redis) still has step 1 at step 3.
    expect((await run([0, 0, 0]))[2]).toMatchObject({ kind: 'semantic', evidence: { steps: [1, 3], window: 'long' } });
    // Step 2 taken by the other detector reaches the first one's long window through the shared short window.
    expect((await run([0, 1, 0]))[2]).toMatchObject({ kind: 'semantic', evidence: { steps: [1, 3], window: 'long' } });

    // A snapshot older than what a detector holds (a write that failed) drops its long window rather than mix histories.
    const detector = detectorFor(options);
    await detector.observe('s1', say('search flights to Paris'));
    const old = JSON.parse(JSON.stringify(detector.exportSession!('s1')));
    await detector.observe('s1', say('book a hotel'));
    detector.importSession!('s1', { ...old, steps: 0, window: [] });
    expect(await detector.observe('s1', say('look up flights going to Paris'))).toBeNull();
  });
});
