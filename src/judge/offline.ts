import { withUsage, unwrapAnswer, type TokenUsage } from '../authoring/model.js';
import { hasErrorCode, PanoptesError } from '../errors/index.js';
import type { JudgeModel, JudgeModelRequest } from './model.js';

/**
 * A judge model written as a function of the request, for tests and offline examples: it reads the rubric, the
 * judged material (`request.judged`) and the key, and answers `{ criteria: [{ id, score, reasoning, evidence }],
 * confidence }` (or throws, or never answers, to test `on_error`). No order dependence: the same request gets the
 * same answer however the judgments interleave.
 * @example
 * const model = scriptedJudge(({ judged }) => ({ criteria: [{ id: 'no_amount', score: /\$\d/.test(judged) ? 0 : 1, reasoning: '', evidence: [] }], confidence: 0.9 }));
 */
export function scriptedJudge(answer: (request: JudgeModelRequest) => unknown, { modelId = 'scripted' }: { modelId?: string } = {}): JudgeModel {
  return Object.assign(async (request: JudgeModelRequest) => answer(request), { modelId });
}

/** One recorded answer: the model's JSON and the tokens it used. */
export interface CassetteEntry {
  answer: unknown;
  usage?: TokenUsage;
}

/** Recorded verdicts of one model, by cache key; what `panoptes judge record` writes as JSON. */
export interface Cassette {
  /** The recorded model's id: part of every key, and the replaying judge's `modelId`. */
  modelId: string;
  entries: Record<string, CassetteEntry>;
}

/** Options of {@link recordedJudge}. */
export interface RecordedJudgeOptions {
  /** A miss throws {@link CassetteMissError} (a judgment error, with the key) instead of asking `fallback`. @default true */
  strict?: boolean;
  /** Not strict: the model asked on a miss; its answer is added to the cassette (recording). */
  fallback?: JudgeModel;
}

/** A strict recorded judge had no answer for a key. */
export class CassetteMissError extends PanoptesError {
  readonly key: string;

  constructor(key: string) {
    super('CASSETTE_MISS', `no recorded verdict for key ${key}; record it with \`panoptes judge record\`, or replay with strict: false and a fallback model`);
    this.name = 'CassetteMissError';
    this.key = key;
  }

  static override isInstance(value: unknown): value is CassetteMissError {
    return hasErrorCode(value, 'CASSETTE_MISS');
  }
}

/**
 * A judge model that replays recorded answers by cache key (rubric id and version, model id, normalised input), so
 * replay does not depend on the order of judgments. Strict (the default), a miss is an error naming the key; not
 * strict, a miss asks `fallback` and records its answer into `cassette.entries`.
 * @example
 * const judge = createJudge({ model: recordedJudge(JSON.parse(readFileSync('judge.cassette.json', 'utf8'))), rubrics });
 */
export function recordedJudge(cassette: Cassette, { strict = true, fallback }: RecordedJudgeOptions = {}): JudgeModel {
  return Object.assign(
    async (request: JudgeModelRequest) => {
      const entry = Object.hasOwn(cassette.entries, request.key) ? cassette.entries[request.key] : undefined;
      if (entry) return entry.usage ? withUsage(entry.answer, entry.usage) : entry.answer;
      if (strict || !fallback) throw new CassetteMissError(request.key);
      const { value, usage } = unwrapAnswer(await fallback(request));
      cassette.entries[request.key] = { answer: value, ...(usage ? { usage } : {}) };
      return usage ? withUsage(value, usage) : value;
    },
    { modelId: cassette.modelId },
  );
}

/** An empty cassette for a model, to record into. */
export function emptyCassette(modelId: string): Cassette {
  return { modelId, entries: {} };
}
