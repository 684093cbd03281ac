/**
 * The AI SDK types this adapter reads, derived from the host alias `LanguageModelMiddleware` rather than the
 * versioned spec names (`LanguageModelV3CallOptions` ...), so a spec bump that keeps the alias needs no edit here.
 * @module
 */
import type { LanguageModelMiddleware } from 'ai';

type TransformParams = NonNullable<LanguageModelMiddleware['transformParams']>;
type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
type WrapStream = NonNullable<LanguageModelMiddleware['wrapStream']>;

/** What one model call receives: the prompt, settings, headers and provider options. */
export type CallOptions = Parameters<TransformParams>[0]['params'];
/** The provider-level prompt: system, user, assistant and tool messages. */
export type Prompt = CallOptions['prompt'];
export type PromptMessage = Prompt[number];
/** A non-streaming model response. */
export type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
/** One item of a response: text, reasoning, a tool call, a provider-executed tool result, a file, a source. */
export type ResponseContent = GenerateResult['content'][number];
/** A tool call as a model response carries it (its input is a JSON string). */
export type ResponseToolCall = Extract<ResponseContent, { type: 'tool-call' }>;
/** A streaming model response. */
export type StreamResult = Awaited<ReturnType<WrapStream>>;
/** One chunk of a streamed response. */
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;
/** Response-level metadata, keyed by provider. */
export type ProviderMetadata = NonNullable<GenerateResult['providerMetadata']>;
