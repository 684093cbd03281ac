import { createHash } from 'node:crypto';
import { LruMap } from '../embed/lru.js';
import { normaliseText } from './input.js';
import type { Rubric } from './rubric.js';
import type { JudgeVerdict } from './verdict.js';

/** Verdicts one judge keeps, unless told otherwise. */
export const DEFAULT_JUDGE_CACHE_SIZE = 10_000;

/**
 * The exact key of a judgment: the rubric's id and version, the model's id, and a SHA-256 of the normalised judged
 * material (whitespace folded, case folded). The same key means the same question to the same model, so a cached
 * or recorded verdict answers it; any change of wording, model or input is a new key.
 * @example
 * judgeCacheKey(rubric, 'openai:gpt-4o-mini', judged) // 'no_refund_promise@1|openai:gpt-4o-mini|3f2a...'
 */
export function judgeCacheKey(rubric: Pick<Rubric, 'id' | 'version'>, modelId: string, judged: string): string {
  const digest = createHash('sha256').update(normaliseText(judged)).digest('hex').slice(0, 32);
  return `${rubric.id}@${rubric.version}|${modelId}|${digest}`;
}

/** A bounded store of verdicts by key. Pass one to share verdicts between judges; `false` turns caching off. */
export interface VerdictCache {
  get(key: string): JudgeVerdict | undefined;
  set(key: string, verdict: JudgeVerdict): void;
}

/** An in-memory verdict cache that forgets the least recently used verdict past `maxEntries`. */
export function createVerdictCache({ maxEntries = DEFAULT_JUDGE_CACHE_SIZE }: { maxEntries?: number } = {}): VerdictCache {
  const entries = new LruMap<string, JudgeVerdict>(maxEntries);
  return { get: (key) => entries.get(key), set: (key, verdict) => entries.set(key, verdict) };
}
