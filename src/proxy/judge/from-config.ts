/**
 * The judge `panoptes serve` builds from its `judge:` section: the rubrics, and the model it names (a chat endpoint,
 * or a cassette replayed strictly), with the section's bounds and the proxy's telemetry.
 * @module
 */
import type { Meter, Tracer } from '@opentelemetry/api';
import { createJudge, recordedJudge, type Judge } from '../../judge/index.js';
import type { Logger } from '../../monitor/index.js';
import type { ServeJudgeConfig } from '../config/judge.js';
import { endpointJudgeModel } from './endpoint-model.js';

/**
 * Builds the judge of a checked `judge:` section. A cassette replays strictly: a judgment it has no verdict for is a
 * `model` error, resolved by the rubric's `on_error`. The API key is read from `env` now, never kept in the config.
 */
export function judgeFromConfig(config: ServeJudgeConfig, { env = process.env, logger = console, tracer, meter }: { env?: Record<string, string | undefined>; logger?: Logger; tracer?: Tracer; meter?: Meter } = {}): Judge {
  const { model } = config;
  const apiKey = model.kind === 'endpoint' && model.apiKeyEnv !== undefined ? env[model.apiKeyEnv] : undefined;
  return createJudge({
    model: model.kind === 'cassette' ? recordedJudge(model.cassette) : endpointJudgeModel({ baseUrl: model.baseUrl, model: model.model, ...(apiKey ? { apiKey } : {}) }),
    rubrics: config.rubrics,
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
    ...(config.concurrency === undefined ? {} : { concurrency: config.concurrency }),
    ...(config.budget ? { budget: config.budget } : {}),
    logger: { warn: (message: string) => logger.warn(message) },
    ...(tracer ? { tracer } : {}),
    ...(meter ? { meter } : {}),
  });
}
