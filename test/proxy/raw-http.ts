/**
 * Raw HTTP on loopback for the tests that `fetch` cannot express: `fetch` (like any WHATWG URL user) resolves dot
 * segments and re-encodes the path before sending, so a crafted request target never leaves it as written.
 */
import { request } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends `target` exactly as given (`/v1/x/../chat/completions`), with an optional JSON body. */
export function rawRequest(baseUrl: string, { method = 'POST', target, headers = {}, body }: { method?: string; target: string; headers?: Record<string, string>; body?: unknown }): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const sent = request({ host: hostname, port, method, path: target, agent: false, headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(payload);
  });
}

/**
 * The path a lenient upstream would route by: percent-decoded (encoded slashes included), backslashes as slashes,
 * empty and `.` segments dropped, `..` resolved, letters in any case, `;` parameters and trailing spaces or dots
 * ignored. What the proxy's path handling must never be weaker than.
 */
export function lenientPath(rawPath: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath.split('?')[0]!);
  } catch {
    decoded = rawPath.split('?')[0]!;
  }
  const segments: string[] = [];
  for (const raw of decoded.replace(/\\/g, '/').split('/')) {
    let segment = raw.toLowerCase().replace(/;.*$/s, '').trim();
    if (segment !== '.' && segment !== '..') segment = segment.replace(/[.\s]+$/, '');
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}
