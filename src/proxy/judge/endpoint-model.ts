/**
 * The proxy's judge model over an OpenAI-compatible chat endpoint (`judge.model` in the serve configuration): one
 * `POST <base_url>/chat/completions` per judgment, asking for the verdict's JSON schema as `response_format`, aborted
 * with the judgment's signal when it times out. No SDK: the proxy already speaks this API to its upstream.
 * @module
 */
import { withUsage } from '../../authoring/model.js';
import { namedJudgeModel, type JudgeModel, type JudgeModelRequest } from '../../judge/index.js';

/** Options of {@link endpointJudgeModel}. */
export interface EndpointJudgeModelOptions {
  /** Base URL, `/v1` included (`http://127.0.0.1:8000/v1`). */
  baseUrl: string;
  /** The model the endpoint runs (`gpt-4o-mini`). */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>`; none for an endpoint that takes no key. */
  apiKey?: string;
  /** @default globalThis.fetch (undici) */
  fetch?: typeof globalThis.fetch;
}

/** Longest error body text kept in the error a failed call becomes (it is logged once, counted always). */
const ERROR_TEXT = 200;

/**
 * A judge model that asks an OpenAI-compatible chat endpoint, temperature 0, for JSON that follows the verdict's
 * schema (`response_format: { type: 'json_schema', strict: true }`). An error status, a refusal or an answer without
 * text throws, and the judge resolves it by the rubric's `on_error`; the answer's token usage is reported.
 * @example
 * const model = endpointJudgeModel({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'gpt-4o-mini', apiKey: process.env.OPENAI_API_KEY });
 */
export function endpointJudgeModel({ baseUrl, model, apiKey, fetch = globalThis.fetch }: EndpointJudgeModelOptions): JudgeModel {
  const url = `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return namedJudgeModel(model, async ({ messages, jsonSchema, signal }: JudgeModelRequest) => {
    const response = await fetch(url, {
      method: 'POST',
      signal,
      headers: { 'content-type': 'application/json', accept: 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify({
        model,
        messages,
        temperature: 0,
        response_format: { type: 'json_schema', json_schema: { name: 'panoptes_verdict', strict: true, schema: jsonSchema } },
      }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`the judge endpoint answered ${response.status}: ${text.slice(0, ERROR_TEXT)}`);
    let body: { choices?: Array<{ message?: { content?: unknown; refusal?: unknown } }>; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new Error(`the judge endpoint's answer is not JSON: ${text.slice(0, ERROR_TEXT)}`);
    }
    const message = body.choices?.[0]?.message;
    if (typeof message?.refusal === 'string' && message.refusal !== '') throw new Error(`the judge model refused: ${message.refusal.slice(0, ERROR_TEXT)}`);
    if (typeof message?.content !== 'string') throw new Error('the judge endpoint answered no message text');
    const { prompt_tokens: input, completion_tokens: output } = body.usage ?? {};
    return typeof input === 'number' && typeof output === 'number' ? withUsage(message.content, { inputTokens: input, outputTokens: output }) : message.content;
  });
}
