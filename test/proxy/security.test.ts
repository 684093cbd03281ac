/**
 * The proxy's smaller security defects found by an outside probe: secrets in configuration errors, an empty key list
 * that started an open proxy, an oversized body that the client saw as EPIPE, and client headers that told the
 * upstream things the proxy never checked.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createMonitor, loadWorkflow } from '../../src/index.js';
import { createProxy, loadServeConfig } from '../../src/proxy/index.js';
import { hastyAgent } from './fake-upstream.js';
import { ask, OPENING, startProxy, SUPPORT_WORKFLOW } from './helpers.js';

async function configError(env: Record<string, string>): Promise<string> {
  const error = await loadServeConfig({ env: { PANOPTES_UPSTREAM: 'http://127.0.0.1:8000/v1', PANOPTES_WORKFLOW: SUPPORT_WORKFLOW, ...env } }).then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(Error);
  return (error as Error).message;
}

describe('configuration', () => {
  it('never prints a proxy key or a Redis password in an error', async () => {
    const redis = await configError({ PANOPTES_REDIS__URL: 'redis://app:hunter2/x@cache:6379 0' });
    expect(redis).toContain('PANOPTES_REDIS__URL');
    expect(redis).toContain('redis://***@cache:6379 0');
    expect(redis).not.toContain('hunter2');
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-serve-'));
    const configPath = join(folder, 'panoptes.yaml');
    writeFileSync(configPath, 'proxy_keys: [pk-secret-1, 12345678]\n');
    const keys = await loadServeConfig({ configPath, env: { PANOPTES_UPSTREAM: 'http://127.0.0.1:8000/v1', PANOPTES_WORKFLOW: SUPPORT_WORKFLOW } }).catch((error: Error) => error.message);
    expect(keys).toContain('proxy_keys');
    expect(keys).toContain('2 value(s) (11 characters, a number; not shown)');
    expect(keys).not.toContain('pk-secret-1');
    expect(keys).not.toContain('12345678');
  });

  it('refuses an empty key list instead of starting an open proxy', async () => {
    const message = await configError({ PANOPTES_PROXY_KEYS: ' , ' });
    expect(message).toContain('PANOPTES_PROXY_KEYS');
    expect(message).toContain('an empty list');
    const workflow = await loadWorkflow(SUPPORT_WORKFLOW);
    for (const proxyKeys of [[], ['  ']]) {
      expect(() => createProxy({ upstream: 'http://127.0.0.1:1/v1', monitor: createMonitor({ workflow }), proxyKeys })).toThrow(/proxyKeys/);
    }
  });
});

describe('an oversized body', () => {
  it('is a 413 the official client reports, refused from its Content-Length before the body is read', async () => {
    const running = await startProxy(hastyAgent);
    try {
      const huge = 'x'.repeat(11 * 1024 * 1024);
      const error = await running.client.chat.completions.create({ model: 'x', messages: [...OPENING, { role: 'user', content: huge }] }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error).toMatchObject({ status: 413, code: 'request_too_large' });
      expect(running.upstream.requests).toHaveLength(0);
    } finally {
      await running.close();
    }
  });
});

/** Writes a request with an 11 MiB body to the proxy over a raw socket, as fast as the socket takes it. */
function writeLargeBody(url: string, path: string, { chunked }: { chunked: boolean }): Promise<{ written: number; size: number; error: string; answer: string }> {
  const size = 11 * 1024 * 1024;
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    let answer = '';
    let written = 0;
    let error = '';
    socket.on('data', (data) => (answer += data));
    socket.on('error', (caught) => (error = String(caught)));
    socket.on('close', () => resolve({ written, size, error, answer }));
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n${chunked ? 'transfer-encoding: chunked' : `content-length: ${size}`}\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const framed = chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]) : chunk;
    const pump = () => {
      while (written < size) {
        written += chunk.length;
        if (!socket.write(framed)) return void socket.once('drain', pump);
      }
      if (chunked) socket.write('0\r\n\r\n');
      setTimeout(() => socket.end(), 100);
    };
    // The client starts on its body a moment after its headers, as a client over a real network does.
    setTimeout(pump, 50);
  });
}

describe('a body over the limit, over a raw socket', () => {
  it('with a Content-Length: the connection stays open while the client writes, then it reads the 413', async () => {
    const running = await startProxy(hastyAgent);
    try {
      const { written, size, error, answer } = await writeLargeBody(running.url, '/v1/chat/completions', { chunked: false });
      expect(error).toBe('');
      expect(written).toBe(size);
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toContain('request_too_large');
    } finally {
      await running.close();
    }
  });

  it('chunked, to a pass-through route: cut off at the limit with a 413, not streamed upstream whole', async () => {
    const running = await startProxy(hastyAgent, { proxy: { passthrough: ['/v1/embeddings'] } });
    try {
      const { answer } = await writeLargeBody(running.url, '/v1/embeddings', { chunked: true });
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(running.upstream.requests).toHaveLength(0);
    } finally {
      await running.close();
    }
  });
});

describe('headers sent upstream', () => {
  it('follow the allowlist: credentials and SDK headers pass, forwarding and override headers stay', async () => {
    const running = await startProxy(hastyAgent);
    try {
      await running.client.chat.completions.create(
        { model: 'x', messages: OPENING },
        { headers: { 'x-forwarded-for': '10.0.0.1', forwarded: 'for=10.0.0.1', 'x-forwarded-host': 'admin.internal', 'x-real-ip': '10.0.0.1', 'x-http-method-override': 'DELETE', cookie: 'session=1', 'openai-organization': 'org-1', 'x-panoptes-session-id': 'h' } },
      );
      const sent = running.upstream.requests[0]!.headers;
      for (const name of ['x-forwarded-for', 'forwarded', 'x-forwarded-host', 'x-real-ip', 'x-http-method-override', 'cookie', 'x-panoptes-session-id']) expect(sent[name], name).toBeUndefined();
      expect(sent.authorization).toBe('Bearer sk-test-secret');
      expect(sent['openai-organization']).toBe('org-1');
      expect(sent['x-stainless-lang']).toBe('js');
      expect(sent['content-type']).toBe('application/json');
    } finally {
      await running.close();
    }
  });
});

describe('a call in the same response as the verification it depends on', () => {
  it('is refused: the verification’s result was not seen when the refund was asked for', async () => {
    const running = await startProxy(() => ({ content: '', toolCalls: [{ id: 'call_v', name: 'verify_identity', args: { account: 'ACC-1' } }, { id: 'call_r', name: 'issue_refund', args: { order: 'A-1042' } }] }));
    try {
      for (const stream of [false, true]) {
        const { message } = await ask(running.client, OPENING, { stream, headers: { 'x-panoptes-session-id': `same-response-${stream}` } });
        expect(message.tool_calls?.map((call) => (call.type === 'function' ? call.function.name : call.type))).toEqual(['verify_identity']);
        expect(message.content).toBe("I can't do that.");
      }
      // The model reads why on the session's next call: the refund is to be asked for again, now that the verification ran.
      await ask(running.client, OPENING, { stream: false, headers: { 'x-panoptes-session-id': 'same-response-false' } });
      expect(String(running.upstream.requests.at(-1)!.body!.messages[0]!.content)).toContain('call issue_refund again once it is');
    } finally {
      await running.close();
    }
  });
});
