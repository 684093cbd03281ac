/**
 * An OpenAI-compatible `POST /v1/embeddings` server on loopback, for the semantic tier's tests. Its "model" knows a
 * handful of synonyms: each word of a concept (refund, reimbursement, money back) adds to that concept's dimension,
 * other words are ignored, so paraphrases of one request get the same vector and unrelated texts orthogonal ones, as a
 * sentence-embedding model would put them near and far. It can also be made slow or failing.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

const CONCEPTS: readonly RegExp[] = [
  /\b(look|looking|check|checking|review|reviewing|see)\b/g,
  /\b(refund|refunds|reimbursement|reimburse|money back)\b/g,
  /\b(policy|policies|rules|terms)\b/g,
  /\b(order|a-1042|purchase)\b/g,
  /\b(internal|confidential|private)\b/g,
  /\b(stall|delay|postpone|hold off)\b/g,
  /\b(thirty|30|month|weeks)\b/g,
  /\b(weather|sunny|rain|forecast)\b/g,
  /\b(password|login|sign in)\b/g,
];
const DIMENSIONS = 16;

/** The fake model's vector of a text: concept counts, unit length (a text with no concept gets a dimension of its own). */
export function conceptVector(text: string): number[] {
  const vector: number[] = new Array<number>(DIMENSIONS).fill(0);
  const lower = text.toLowerCase();
  CONCEPTS.forEach((pattern, dimension) => {
    vector[dimension] = (lower.match(pattern) ?? []).length;
  });
  if (!vector.some((value) => value > 0)) vector[CONCEPTS.length + (lower.length % (DIMENSIONS - CONCEPTS.length))] = 1;
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

export type EmbeddingsMode = 'ok' | 'slow' | 'error';

export interface FakeEmbeddings {
  /** `http://127.0.0.1:<port>/v1/embeddings` */
  url: string;
  /** Every request: its body and its `authorization` header. */
  requests: Array<{ body: { model: string; input: string[] | string }; authorization: string | undefined }>;
  mode: EmbeddingsMode;
  /** How long `slow` waits before answering. */
  delayMs: number;
  close(): Promise<void>;
}

export async function startFakeEmbeddings({ mode = 'ok', delayMs = 2000 }: { mode?: EmbeddingsMode; delayMs?: number } = {}): Promise<FakeEmbeddings> {
  const state: Omit<FakeEmbeddings, 'url' | 'close'> = { requests: [], mode, delayMs };
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer(async (request, response) => {
    const body = JSON.parse(await text(request)) as FakeEmbeddings['requests'][number]['body'];
    state.requests.push({ body, authorization: request.headers.authorization });
    if (request.url !== '/v1/embeddings') return void response.writeHead(404).end();
    if (state.mode === 'error') return void response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'model overloaded', type: 'server_error' } }));
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    // Answered in reverse order: clients must put vectors back by `index`.
    const data = inputs.map((input, index) => ({ object: 'embedding', index, embedding: conceptVector(input) })).reverse();
    const answer = () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
    if (state.mode !== 'slow') return answer();
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!response.destroyed) answer();
    }, state.delayMs);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/v1/embeddings`,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

async function text(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return body;
}
