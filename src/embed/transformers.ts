import { InvalidOptionError } from '../errors/index.js';
import type { Embedder } from './embedder.js';
import { importOptional } from './optional-import.js';

/** The default sentence-embedding model: 384 dimensions, about 23 MB (fp32) or 6 MB (q8). */
export const DEFAULT_TRANSFORMERS_MODEL = 'Xenova/all-MiniLM-L6-v2';
/** Texts per forward pass in `embedDocuments`: bounds the padded batch tensor. */
export const DEFAULT_TRANSFORMERS_BATCH_SIZE = 32;
/** Longest prefix of a text handed to the tokenizer, which truncates to the model's limit (512 word pieces) anyway. */
export const DEFAULT_TRANSFORMERS_MAX_CHARACTERS = 8192;

const PACKAGE = '@huggingface/transformers';

/** Weight formats of transformers.js; each selects an ONNX file (`fp32`: `onnx/model.onnx`, `q8`: `onnx/model_quantized.onnx`). */
export type TransformersDtype = 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4' | 'q4f16' | 'bnb4';
const DTYPES: readonly TransformersDtype[] = ['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16', 'bnb4'];

/** Options of {@link createTransformersEmbedder}. */
export interface TransformersEmbedderOptions {
  /**
   * Hugging Face model id, or a folder name under `localModelPath`. The model must be a sentence-embedding model
   * with ONNX weights (the `Xenova/` and `onnx-community/` conversions).
   * @default 'Xenova/all-MiniLM-L6-v2'
   */
  model?: string;
  /**
   * Folder holding models as `<localModelPath>/<model>/config.json`, `tokenizer.json`, `tokenizer_config.json` and
   * `onnx/model.onnx`. Applied through transformers.js's process-wide `env.localModelPath` while the model loads,
   * then restored.
   * @default undefined (transformers.js's own default folder)
   */
  localModelPath?: string;
  /**
   * Whether a model missing locally may be downloaded from the Hugging Face Hub. `false` loads only local files, for
   * offline and air-gapped machines (transformers.js's `local_files_only`, and its process-wide
   * `env.allowRemoteModels` while the model loads, then restored).
   * @default true
   */
  allowRemoteModels?: boolean;
  /**
   * Load the 8-bit quantised weights (`onnx/model_quantized.onnx`): about a quarter of the size, slightly less
   * precise. Shorthand for `dtype: 'q8'`.
   * @default false
   */
  quantized?: boolean;
  /**
   * Weight format, for models that ship several. Combining it with a `quantized` that says otherwise is an error.
   * @default 'fp32' ('q8' when `quantized` is true)
   */
  dtype?: TransformersDtype;
  /**
   * Texts per forward pass in `embedDocuments`.
   * @default 32
   */
  batchSize?: number;
  /**
   * Only the first this many characters of each text are tokenised, so a huge message costs bounded time.
   * @default 8192
   */
  maxCharacters?: number;
}

/** The embedder returned by {@link createTransformersEmbedder}. */
export interface TransformersEmbedder extends Embedder {
  /** The model id it loads. */
  readonly model: string;
  /** Vector length, known once the model has produced a vector; `undefined` before. */
  readonly dimensions: number | undefined;
  /**
   * Loads the model and runs it once, so the first real call does not pay for loading (seconds) and graph
   * initialisation. Call it at startup; it also surfaces a missing package or model then rather than mid-session.
   */
  warmUp(): Promise<void>;
  /** Releases the ONNX session; the next call loads the model again. */
  dispose(): Promise<void>;
}

// The slice of transformers.js used here, declared structurally so the core has no type dependency on an optional
// peer. test/embed/transformers.test.ts checks that the real module satisfies it.
/** @internal */
export interface FeatureTensor {
  readonly data: ArrayLike<number>;
  readonly dims: readonly number[];
}
/** @internal */
export interface FeatureExtractor {
  (texts: string[], options: { pooling: 'mean'; normalize: boolean }): Promise<FeatureTensor>;
  dispose?(): Promise<unknown>;
}
/** @internal */
export interface TransformersModule {
  env: { localModelPath: string; allowRemoteModels: boolean };
  pipeline(task: 'feature-extraction', model: string, options: { dtype: TransformersDtype; local_files_only: boolean }): Promise<FeatureExtractor>;
}

/**
 * Creates an embedder that runs a sentence-embedding model locally through `@huggingface/transformers` (an optional
 * peer dependency: `npm install @huggingface/transformers`), with mean pooling over tokens and L2 normalisation, as
 * sentence-transformers does for all-MiniLM-L6-v2. Nothing is loaded until the first call or {@link
 * TransformersEmbedder.warmUp}; a failed load is retried on the next call.
 * @param options See {@link TransformersEmbedderOptions}.
 * @throws {InvalidOptionError} when an option is invalid (at construction).
 * @throws {MissingDependencyError} (as a rejection, at first use) when `@huggingface/transformers` is not installed.
 * @example
 * const embedder = createTransformersEmbedder({ localModelPath: './models', allowRemoteModels: false, quantized: true });
 * await embedder.warmUp();
 * const vector = await embedder.embedQuery('I need to change my flight'); // 384 numbers, unit length
 */
export function createTransformersEmbedder({
  model = DEFAULT_TRANSFORMERS_MODEL,
  localModelPath,
  allowRemoteModels = true,
  quantized,
  dtype,
  batchSize = DEFAULT_TRANSFORMERS_BATCH_SIZE,
  maxCharacters = DEFAULT_TRANSFORMERS_MAX_CHARACTERS,
}: TransformersEmbedderOptions = {}): TransformersEmbedder {
  const weights = resolveDtype(quantized, dtype);
  if (typeof model !== 'string' || model.trim() === '') {
    throw new InvalidOptionError({ parameter: 'model', value: model, fix: `Pass a model id such as '${DEFAULT_TRANSFORMERS_MODEL}'.` });
  }
  if (localModelPath !== undefined && (typeof localModelPath !== 'string' || localModelPath === '')) {
    throw new InvalidOptionError({ parameter: 'localModelPath', value: localModelPath, fix: 'Pass the folder that contains the model folder, or omit it.' });
  }
  if (typeof allowRemoteModels !== 'boolean') {
    throw new InvalidOptionError({ parameter: 'allowRemoteModels', value: allowRemoteModels, fix: 'Pass true or false.' });
  }
  assertPositiveInteger('batchSize', batchSize, 'such as 32');
  assertPositiveInteger('maxCharacters', maxCharacters, 'such as 8192');

  let loading: Promise<FeatureExtractor> | undefined;
  let dimensions: number | undefined;

  const load = (): Promise<FeatureExtractor> =>
    (loading ??= (async () => {
      const transformers = (await importOptional(PACKAGE, 'createTransformersEmbedder()')) as TransformersModule;
      const overrides: Partial<TransformersModule['env']> = {};
      if (localModelPath !== undefined) overrides.localModelPath = localModelPath;
      // transformers.js 4.3 does not pass `local_files_only` to every file it fetches while resolving a pipeline
      // (the config is fetched first), so offline loading needs the process-wide switch as well.
      if (!allowRemoteModels) overrides.allowRemoteModels = false;
      return withEnvironment(transformers.env, overrides, () =>
        transformers.pipeline('feature-extraction', model, { dtype: weights, local_files_only: !allowRemoteModels }),
      );
    })().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));

  const run = async (texts: string[]): Promise<number[][]> => {
    if (texts.length === 0) return [];
    const extractor = await load();
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      const batch = texts.slice(start, start + batchSize).map((text) => (text.length > maxCharacters ? text.slice(0, maxCharacters) : text));
      const output = await extractor(batch, { pooling: 'mean', normalize: true });
      vectors.push(...rows(output, batch.length));
    }
    dimensions ??= vectors[0]?.length;
    return vectors;
  };

  return {
    model,
    get dimensions() {
      return dimensions;
    },
    embedQuery: async (text) => (await run([text]))[0]!,
    embedDocuments: (texts) => run(texts),
    warmUp: async () => {
      await run(['warm up']);
    },
    dispose: async () => {
      const current = loading;
      loading = undefined;
      if (current === undefined) return;
      const extractor = await current.catch(() => undefined);
      await extractor?.dispose?.();
    },
  };
}

// Loads that change transformers.js's process-wide `env` run one at a time, so two embedders with different folders
// cannot see each other's settings; the settings are restored once the pipeline has read its files.
let environmentLock: Promise<unknown> = Promise.resolve();
function withEnvironment<T>(env: TransformersModule['env'], overrides: Partial<TransformersModule['env']>, load: () => Promise<T>): Promise<T> {
  if (Object.keys(overrides).length === 0) return load();
  const run = async () => {
    const previous = Object.fromEntries(Object.keys(overrides).map((key) => [key, env[key as keyof typeof env]]));
    Object.assign(env, overrides);
    try {
      return await load();
    } finally {
      Object.assign(env, previous);
    }
  };
  const result = environmentLock.then(run, run);
  environmentLock = result.catch(() => undefined);
  return result;
}

/** Splits a pooled `[texts, dimensions]` tensor into one plain array per text. */
function rows(output: FeatureTensor, count: number): number[][] {
  const [texts, width] = output.dims;
  if (output.dims.length !== 2 || texts !== count || width === undefined) {
    throw new TypeError(`Expected pooled embeddings of shape [${count}, dimensions], got [${output.dims.join(', ')}].`);
  }
  const result: number[][] = [];
  for (let row = 0; row < count; row++) {
    const vector = new Array<number>(width);
    for (let i = 0; i < width; i++) vector[i] = output.data[row * width + i]!;
    result.push(vector);
  }
  return result;
}

function resolveDtype(quantized: boolean | undefined, dtype: TransformersDtype | undefined): TransformersDtype {
  if (quantized !== undefined && typeof quantized !== 'boolean') {
    throw new InvalidOptionError({ parameter: 'quantized', value: quantized, fix: 'Pass true or false.' });
  }
  if (dtype !== undefined && !DTYPES.includes(dtype)) {
    throw new InvalidOptionError({ parameter: 'dtype', value: dtype, fix: `Pass one of ${DTYPES.join(', ')}.` });
  }
  if (dtype !== undefined && quantized !== undefined && (dtype === 'q8') !== quantized) {
    throw new InvalidOptionError({ parameter: 'dtype', value: dtype, fix: `It contradicts quantized: ${quantized}; pass only one of the two.` });
  }
  return dtype ?? (quantized ? 'q8' : 'fp32');
}

function assertPositiveInteger(parameter: string, value: number, example: string): void {
  if (!Number.isInteger(value) || value < 1) throw new InvalidOptionError({ parameter, value, fix: `Pass a positive integer ${example}.` });
}
