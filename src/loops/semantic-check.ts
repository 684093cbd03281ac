import type { Clock } from '../clock/index.js';
import type { Logger } from '../monitor/fail-open.js';
import type { LoopEmbedding } from './embedding.js';
import { createLongWindow } from './long-window.js';
import type { LoopMissCounter, ResolvedLoopOptions } from './options.js';
import { subjectOf, type PreparedStep } from './prepare-step.js';
import type { Ring } from './ring.js';
import { bestInWindow, type WindowEntry, type WindowMatch } from './semantic-window.js';
import type { LoopSession } from './session.js';
import type { LoopFinding } from './types.js';

/** What the semantic check needs. @internal */
export interface SemanticCheckContext {
  embedding: LoopEmbedding;
  config: Pick<ResolvedLoopOptions, 'threshold' | 'ttlMs' | 'longWindow'>;
  clock: Clock;
  logger: Logger;
  misses: LoopMissCounter;
}

/**
 * Builds the semantic check: embed the step's subject (its text and calls), compare it with the short window and,
 * when nothing there is close enough, the long window; then add it to both. A step that repeats an earlier one
 * joins that step's cluster, so the loop keeps one id while it goes on. Index faults are counted and leave the
 * short window's answer.
 * @internal
 */
export function createSemanticCheck({ embedding, config, clock, logger, misses }: SemanticCheckContext) {
  return async function checkSemantic(session: LoopSession, step: Extract<PreparedStep, { kind: 'step' }>, stepNumber: number): Promise<LoopFinding | null> {
    const at = clock.now();
    // A literal repeat of a step still in the window has that step's embedding: no need to ask the embedder again.
    const vector = sameStepIn(session.window, step.key)?.vector ?? (await embedding.embed(subjectOf(step)));
    if (vector === undefined) return null;
    let match: (WindowMatch & { window: 'short' | 'long' }) | null = null;
    const near = bestInWindow(session.window, vector, step.key, at, config.ttlMs);
    if (near && near.similarity > config.threshold) match = { ...near, window: 'short' };
    if (config.longWindow) {
      try {
        session.long ??= createLongWindow(config.longWindow, logger);
        if (match === null) {
          const far = session.long.search(vector, step.key, at, config.ttlMs);
          if (far && far.similarity > config.threshold) match = { ...far, window: 'long' };
        }
      } catch (error) {
        misses.record('internal', 'The loop detector’s long-window index failed; the step was compared with the short window only.', error);
      }
    }
    const cluster = match ? match.cluster : stepNumber;
    session.window.push({ vector, key: step.key, step: stepNumber, at, cluster });
    try {
      session.long?.add(vector, step.key, stepNumber, at, cluster);
    } catch (error) {
      misses.record('internal', 'The loop detector’s long-window index failed to store a step.', error);
    }
    if (match === null) return null;
    const back = stepNumber - match.step;
    return {
      kind: 'semantic',
      loopId: `semantic:${match.cluster}`,
      evidence: { steps: [match.step, stepNumber], repetitions: 2, similarity: match.similarity, window: match.window },
      detail: `your latest step is almost the same as one you took ${back === 1 ? 'just before' : `${back} steps ago`}`,
    };
  };
}

function sameStepIn(window: Ring<WindowEntry>, key: number): WindowEntry | undefined {
  for (let back = 0; back < window.length; back++) {
    const entry = window.fromEnd(back)!;
    if (entry.key === key) return entry;
  }
  return undefined;
}
