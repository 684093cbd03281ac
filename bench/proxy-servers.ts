/**
 * The servers of the proxy bench (bench/proxy.ts), each started in a process of its own so the client, the proxy and
 * the upstream do not share one event loop: `tsx bench/proxy-servers.ts <upstream|plain|panoptes> [upstreamUrl]
 * [redisUrl]` prints `url <base>` once it listens, and runs until killed.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { Agent, request } from 'undici';
import { createMonitor, loadWorkflow, type MonitorSession } from 'panoptes';
import { createProxy } from 'panoptes/proxy';

const WORKFLOW = fileURLToPath(new URL('../examples/workflows/customer-support.yaml', import.meta.url));

const completion = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'bench',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Could you tell me more about the problem with your order?' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 20, completion_tokens: 12, total_tokens: 32 },
});
const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** The fake upstream: answers at once; a stream sends its first text delta at once and the rest 20 ms later. */
async function upstream(): Promise<string> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (data: Buffer) => (raw += data.toString()));
    req.on('end', () => {
      if (raw.includes('"stream":true')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ role: 'assistant', content: 'Could' }));
        setTimeout(() => {
          res.write(chunk({ content: ' you tell me more?' }));
          res.write(chunk({}, 'stop'));
          res.end('data: [DONE]\n\n');
        }, 20);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(completion);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** The baseline proxy: Fastify parses the JSON body, undici forwards it, the answer goes back. No Panoptes. */
async function plain(upstreamUrl: string): Promise<string> {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 256 });
  const app = Fastify({ logger: false });
  app.post('/v1/chat/completions', async (req, reply) => {
    const response = await request(`${upstreamUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(req.body), dispatcher });
    if (String(response.headers['content-type']).includes('event-stream')) {
      reply.hijack();
      reply.raw.writeHead(response.statusCode, { 'content-type': 'text/event-stream' });
      for await (const piece of response.body) reply.raw.write(piece);
      reply.raw.end();
      return;
    }
    return reply.code(response.statusCode).header('content-type', 'application/json').send(await response.body.text());
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
}

/** The proxy as `panoptes serve` runs it: the support workflow, the memory store or Redis. */
async function panoptes(upstreamUrl: string, redisUrl?: string): Promise<string> {
  let store: import('panoptes/redis').RedisSessionStore<MonitorSession> | undefined;
  if (redisUrl) {
    const { createRedisSessionStore } = await import('panoptes/redis');
    store = createRedisSessionStore<MonitorSession>({ url: redisUrl });
    await store.ready();
    setInterval(() => process.stderr.write(''), 60_000).unref();
    process.on('SIGTERM', () => {
      const misses = store!.misses();
      if (Object.keys(misses).length > 0) console.error(`redis misses ${JSON.stringify(misses)}`);
      process.exit(0);
    });
  }
  const monitor = createMonitor({ workflow: await loadWorkflow(WORKFLOW), ...(store ? { store } : {}) });
  const proxy = createProxy({ upstream: upstreamUrl, monitor, port: 0, ...(store ? { storeHealthy: () => store.healthy } : {}) });
  const { url } = await proxy.listen();
  return `${url}/v1`;
}

const [kind, upstreamUrl, redisUrl] = process.argv.slice(2);
const url = kind === 'upstream' ? await upstream() : kind === 'plain' ? await plain(upstreamUrl!) : await panoptes(upstreamUrl!, redisUrl);
console.log(`url ${url}`);
