/**
 * A worker thread of `panoptes verify --workers`: builds its own verifier from the job's options, runs its share of
 * the cases, and posts each result to the main thread as it ends, then its summary. A 'stop' message stops it taking
 * runs (those in flight finish and are posted). Not part of the public API.
 * @internal
 */
import { parentPort, workerData } from 'node:worker_threads';
import { cliVerifier, type WorkerInput } from './verify-cli.js';
import { verifyCases } from './verify-cases.js';

const input = workerData as WorkerInput;
const stop = new AbortController();
parentPort!.on('message', (message) => {
  if (message === 'stop') stop.abort();
});
try {
  const verifier = await cliVerifier(input.verifier);
  const done = new Set(input.done);
  const summary = await verifyCases(verifier.graph, input.cases, input.verifier.criteria, {
    concurrency: input.concurrency,
    signal: stop.signal,
    skip: (caseId, criterionId) => done.has(`${caseId}\u0000${criterionId}`),
    onResult: (result) => parentPort!.postMessage({ result }),
  });
  parentPort!.postMessage({ summary });
} catch (error) {
  parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
}
// posted messages are already the main thread's: let the thread end
parentPort!.unref();
