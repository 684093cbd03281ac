import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as transformers from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosineSimilarity, createTransformersEmbedder, DEFAULT_TRANSFORMERS_MODEL, MissingDependencyError } from '../../src/embed/index.js';
import { importOptional } from '../../src/embed/optional-import.js';
import type { TransformersModule } from '../../src/embed/transformers.js';
import { InvalidOptionError } from '../../src/errors/index.js';
import { expectedEmbedding, TINY_DIMENSIONS, writeTinyModel } from '../fixtures/tiny-model/tiny-model.js';

// The real all-MiniLM-L6-v2 cannot be downloaded here. These tests run the same code path on a tiny BERT-shaped
// model that the test writes itself (DESIGN.md section 14): real transformers.js, real onnxruntime-node, real
// tokenizer, real pooling; only the weights are made up.
const MODEL = 'panoptes/tiny-bert';
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'panoptes-tiny-model-'));
  writeTinyModel(root, MODEL);
  writeTinyModel(root, 'panoptes/quantized-only');
  unlinkSync(join(root, 'panoptes/quantized-only', 'onnx', 'model.onnx'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const local = (options: Parameters<typeof createTransformersEmbedder>[0] = {}) =>
  createTransformersEmbedder({ model: MODEL, localModelPath: root, allowRemoteModels: false, ...options });

describe('createTransformersEmbedder on a generated model', () => {
  it('restores transformers.js\'s process-wide settings after loading', async () => {
    const before = { localModelPath: transformers.env.localModelPath, allowRemoteModels: transformers.env.allowRemoteModels };
    await local().warmUp();
    expect({ localModelPath: transformers.env.localModelPath, allowRemoteModels: transformers.env.allowRemoteModels }).toEqual(before);
  });

  it('loads two models from different folders concurrently', async () => {
    const other = mkdtempSync(join(tmpdir(), 'panoptes-tiny-model-'));
    try {
      writeTinyModel(other, 'panoptes/elsewhere');
      const [a, b] = await Promise.all([
        local().embedQuery('refund'),
        createTransformersEmbedder({ model: 'panoptes/elsewhere', localModelPath: other, allowRemoteModels: false }).embedQuery('refund'),
      ]);
      expect(a).toEqual(b);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('loads offline from localModelPath and returns mean-pooled, normalised vectors', async () => {
    const embedder = local();
    expect(embedder.dimensions).toBeUndefined();
    await embedder.warmUp();
    expect(embedder.dimensions).toBe(TINY_DIMENSIONS);
    const text = 'I want a refund for my payment';
    const vector = await embedder.embedQuery(text);
    expect(vector).toHaveLength(TINY_DIMENSIONS);
    expect(Array.isArray(vector)).toBe(true);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    // Tokenizer, graph, pooling and normalisation end to end: [CLS] + word pieces + [SEP], averaged.
    expectedEmbedding(text).forEach((value, i) => expect(vector[i]).toBeCloseTo(value, 5));
  }, 60_000);

  it('splits words into word pieces as BERT does', async () => {
    const vector = await local().embedQuery('Refunds');
    expectedEmbedding('refunds').forEach((value, i) => expect(vector[i]).toBeCloseTo(value, 5));
  });

  it('puts texts on the same topic closer than texts on different topics', async () => {
    const [billing, otherBilling, account, weather] = await local().embedDocuments([
      'I want a refund for my payment',
      'please refund the charge on my card',
      'reset my password please',
      'what is the weather forecast today',
    ]);
    const sameTopic = cosineSimilarity(billing!, otherBilling!);
    expect(sameTopic).toBeGreaterThan(cosineSimilarity(billing!, account!));
    expect(sameTopic).toBeGreaterThan(cosineSimilarity(billing!, weather!));
    expect(cosineSimilarity(account!, weather!)).toBeLessThan(0.5);
  });

  it('gives the same vectors in batches of any size, in order', async () => {
    const texts = ['refund', 'password reset', 'rain today', 'my card was charged', 'login locked', ''];
    const whole = await local({ batchSize: 32 }).embedDocuments(texts);
    const pieces = await local({ batchSize: 2 }).embedDocuments(texts);
    const single = await Promise.all(texts.map((text) => local().embedQuery(text)));
    expect(whole).toHaveLength(texts.length);
    whole.forEach((vector, i) => {
      vector.forEach((value, d) => {
        expect(pieces[i]![d]).toBeCloseTo(value, 5);
        expect(single[i]![d]).toBeCloseTo(value, 5);
      });
    });
    expect(await local().embedDocuments([])).toEqual([]);
  });

  it('loads onnx/model_quantized.onnx when quantized', async () => {
    await expect(createTransformersEmbedder({ model: 'panoptes/quantized-only', localModelPath: root, allowRemoteModels: false }).embedQuery('refund')).rejects.toThrow();
    const quantized = createTransformersEmbedder({ model: 'panoptes/quantized-only', localModelPath: root, allowRemoteModels: false, quantized: true });
    expect(await quantized.embedQuery('refund')).toHaveLength(TINY_DIMENSIONS);
  });

  it('truncates texts to maxCharacters before tokenising', async () => {
    const embedder = local({ maxCharacters: 6 });
    const [truncated, plain] = await Promise.all([embedder.embedQuery('refund password weather rain'), local().embedQuery('refund')]);
    truncated.forEach((value, i) => expect(value).toBeCloseTo(plain[i]!, 5));
  });

  it('fails without a network when the model is not local, then retries on the next call', async () => {
    const missing = createTransformersEmbedder({ model: 'panoptes/not-there', localModelPath: root, allowRemoteModels: false });
    await expect(missing.warmUp()).rejects.toThrow(/not-there/);
    writeTinyModel(root, 'panoptes/not-there');
    expect(await missing.embedQuery('refund')).toHaveLength(TINY_DIMENSIONS);
  });

  it('dispose() releases the session and a later call loads it again', async () => {
    const embedder = local();
    await embedder.warmUp();
    await embedder.dispose();
    await embedder.dispose();
    expect(await embedder.embedQuery('refund')).toHaveLength(TINY_DIMENSIONS);
  });

  it('declares a slice of transformers.js that the real module satisfies', () => {
    const real: TransformersModule = transformers;
    expect(typeof real.pipeline).toBe('function');
  });
});

describe('createTransformersEmbedder options', () => {
  it('defaults to all-MiniLM-L6-v2 and loads nothing at construction', () => {
    const embedder = createTransformersEmbedder();
    expect(embedder.model).toBe(DEFAULT_TRANSFORMERS_MODEL);
    expect(DEFAULT_TRANSFORMERS_MODEL).toBe('Xenova/all-MiniLM-L6-v2');
  });

  it.each([
    [{ model: '' }, 'model'],
    [{ localModelPath: '' }, 'localModelPath'],
    [{ allowRemoteModels: 'no' as unknown as boolean }, 'allowRemoteModels'],
    [{ quantized: 1 as unknown as boolean }, 'quantized'],
    [{ dtype: 'fp64' as never }, 'dtype'],
    [{ dtype: 'fp32' as const, quantized: true }, 'dtype'],
    [{ batchSize: 0 }, 'batchSize'],
    [{ maxCharacters: 2.5 }, 'maxCharacters'],
  ])('rejects %j at construction', (options, parameter) => {
    expect(() => createTransformersEmbedder(options)).toThrow(InvalidOptionError);
    expect(() => createTransformersEmbedder(options)).toThrow(expect.objectContaining({ parameter }));
  });
});

describe('importOptional', () => {
  const notFound = (specifier: string) =>
    Object.assign(new Error(`Cannot find package '${specifier}' imported from /app/index.js`), { code: 'ERR_MODULE_NOT_FOUND' });

  it('turns a missing package into MissingDependencyError with install instructions', async () => {
    const error = await importOptional('@huggingface/transformers', 'createTransformersEmbedder()', async (specifier) => {
      throw notFound(specifier);
    }).catch((caught: unknown) => caught);
    expect(MissingDependencyError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ packageName: '@huggingface/transformers' });
    expect((error as Error).message).toContain('npm install @huggingface/transformers');
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('passes other failures through: a missing dependency of the package is not the package missing', async () => {
    const brokenAddon = new Error('libonnxruntime.so.1: cannot open shared object file');
    await expect(importOptional('@huggingface/transformers', 'x', async () => Promise.reject(brokenAddon))).rejects.toBe(brokenAddon);
    const nested = notFound('onnxruntime-node');
    await expect(importOptional('@huggingface/transformers', 'x', async () => Promise.reject(nested))).rejects.toBe(nested);
  });

  it('really fails this way for a package that is not installed', async () => {
    await expect(importOptional('@panoptes/definitely-not-installed', 'test')).rejects.toSatisfy(MissingDependencyError.isInstance);
  });
});
