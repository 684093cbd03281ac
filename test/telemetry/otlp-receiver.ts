import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One OTLP/HTTP JSON export the receiver got: its headers and decoded body. */
export interface OtlpExport {
  headers: IncomingMessage['headers'];
  body: unknown;
}

/**
 * A bare OTLP/HTTP receiver on loopback: it keeps the decoded JSON bodies of POST /v1/traces and answers 200; any
 * other path gets 404. Start it in `beforeAll`, close it in `afterAll`.
 */
export async function startOtlpReceiver(): Promise<{ endpoint: string; exports: OtlpExport[]; close(): Promise<void> }> {
  const exports: OtlpExport[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const traces = request.method === 'POST' && request.url === '/v1/traces';
      if (traces && String(request.headers['content-type']).includes('json')) exports.push({ headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      response.writeHead(traces ? 200 : 404, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
