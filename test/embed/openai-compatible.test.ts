/** The OpenAI-compatible `/v1/embeddings` embedder, against a real HTTP server on loopback. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAICompatibleEmbedder, EmbedderRequestError, EmbedderTimeoutError, InvalidOptionError } from '../../src/index.js';
import { conceptVector, startFakeEmbeddings, type FakeEmbeddings } from '../proxy/fake-embeddings.js';

const KEY = 'sk-embed-very-secret';
let server: FakeEmbeddings | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const close of closers.splice(0)) await close();
});

/** A server that answers every request with `body` and `status`. */
async function answering(status: number, body: string): Promise<string> {
  const raw = createServer((_request, response) => response.writeHead(status, { 'content-type': 'application/json' }).end(body));
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => raw.close(() => resolve())));
  return `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1/embeddings`;
}

describe('createOpenAICompatibleEmbedder', () => {
  it('sends the model, the texts and the key, and puts the vectors back in input order', async () => {
    server = await startFakeEmbeddings();
    const embedder = createOpenAICompatibleEmbedder({ url: server.url, model: 'text-embedding-3-small', apiKey: KEY, timeoutMs: 2000 });
    const texts = ['refund my order', 'what is the weather', 'reset my password'];
    expect(await embedder.embedDocuments(texts)).toEqual(texts.map(conceptVector));
    expect(await embedder.embedQuery('refund my order')).toEqual(conceptVector('refund my order'));
    expect(server.requests[0]).toMatchObject({ body: { model: 'text-embedding-3-small', input: texts }, authorization: `Bearer ${KEY}` });
  });

  it('sends embedDocuments in batches of batchSize', async () => {
    server = await startFakeEmbeddings();
    const embedder = createOpenAICompatibleEmbedder({ url: server.url, model: 'm', batchSize: 2 });
    const texts = ['a refund', 'the weather', 'a password', 'an order', 'the policy'];
    expect(await embedder.embedDocuments(texts)).toEqual(texts.map(conceptVector));
    expect(server.requests.map((request) => request.body.input)).toEqual([texts.slice(0, 2), texts.slice(2, 4), texts.slice(4)]);
    expect(server.requests[0]!.authorization).toBeUndefined();
  });

  it('aborts a request past its budget with EmbedderTimeoutError', async () => {
    server = await startFakeEmbeddings({ mode: 'slow', delayMs: 5000 });
    const embedder = createOpenAICompatibleEmbedder({ url: server.url, model: 'm', timeoutMs: 50, batchTimeoutMs: 80 });
    const started = performance.now();
    const error = await embedder.embedQuery('refund').catch((caught: unknown) => caught);
    expect(EmbedderTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ timeoutMs: 50, operation: 'embedQuery' });
    expect(performance.now() - started).toBeLessThan(2000);
    await expect(embedder.embedDocuments(['a'])).rejects.toMatchObject({ timeoutMs: 80, operation: 'embedDocuments' });
  });

  it('rejects an error status with the service message, never the key', async () => {
    server = await startFakeEmbeddings({ mode: 'error' });
    const embedder = createOpenAICompatibleEmbedder({ url: server.url, model: 'm', apiKey: KEY, timeoutMs: 2000 });
    const error = (await embedder.embedQuery('refund').catch((caught: unknown) => caught)) as EmbedderRequestError;
    expect(EmbedderRequestError.isInstance(error)).toBe(true);
    expect(error.status).toBe(500);
    expect(error.message).toBe(`The embeddings service at ${server.url} answered 500: model overloaded.`);
    expect(error.message).not.toContain(KEY);
  });

  it('rejects a service that cannot be reached, naming it without credentials', async () => {
    const url = await answering(200, '{}');
    await closers.pop()!(); // the port is free again: the connection is refused
    const embedder = createOpenAICompatibleEmbedder({ url, model: 'm', timeoutMs: 2000 });
    const error = (await embedder.embedQuery('x').catch((caught: unknown) => caught)) as Error;
    expect(EmbedderRequestError.isInstance(error)).toBe(true);
    expect(error.message.startsWith(`The embeddings service at ${url} could not be reached`)).toBe(true);
    // fetch refuses credentials in a URL, and its message would repeat them: refused at construction instead.
    const withPassword = url.replace('//', '//user:pw-secret@');
    expect(() => createOpenAICompatibleEmbedder({ url: withPassword, model: 'm' })).toThrow(/Take the user and password out of the URL/);
    expect(() => createOpenAICompatibleEmbedder({ url: withPassword, model: 'm' })).not.toThrow(/pw-secret/);
  });

  it.each([
    ['no data list', '{"object":"list"}', 'no data list'],
    ['too few vectors', '{"data":[]}', '0 embeddings for 1 texts'],
    ['a vector of strings', '{"data":[{"index":0,"embedding":["1"]}]}', 'an embedding that is not a list of numbers'],
    ['an index out of place', '{"data":[{"index":3,"embedding":[1]}]}', 'index 3 out of place'],
    ['a body that is not JSON', 'not json', 'a body that is not JSON'],
  ])('rejects an answer with %s', async (_name, body, why) => {
    const url = await answering(200, body);
    const embedder = createOpenAICompatibleEmbedder({ url, model: 'm', timeoutMs: 2000 });
    const error = (await embedder.embedQuery('x').catch((caught: unknown) => caught)) as Error;
    expect(EmbedderRequestError.isInstance(error)).toBe(true);
    expect(error.message).toContain(why);
  });

  it('refuses bad options at construction, never printing the key', () => {
    expect(() => createOpenAICompatibleEmbedder({ url: 'not a url', model: 'm' })).toThrow(InvalidOptionError);
    expect(() => createOpenAICompatibleEmbedder({ url: 'ftp://host/v1/embeddings', model: 'm' })).toThrow(/http:\/\/ or https:\/\//);
    expect(() => createOpenAICompatibleEmbedder({ url: 'http://host/v1/embeddings', model: '' })).toThrow(/model/);
    expect(() => createOpenAICompatibleEmbedder({ url: 'http://host/v1/embeddings', model: 'm', timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createOpenAICompatibleEmbedder({ url: 'http://host/v1/embeddings', model: 'm', apiKey: '' })).toThrow(/apiKey/);
  });
});
