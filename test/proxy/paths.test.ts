/**
 * The proxy cannot be bypassed by a crafted path: the key check, the route, the monitor and the upstream URL all read
 * one normalised path. Each case below reached the upstream's chat route unmonitored (or without a key) before.
 * Requests go as raw HTTP, since `fetch` would normalise the path itself before sending it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseTarget } from '../../src/proxy/index.js';
import type { Wire } from './fake-formats.js';
import { hastyAgent } from './fake-upstream.js';
import { OPENING, startProxy, TOOLS, type Running } from './helpers.js';
import { lenientPath, rawRequest } from './raw-http.js';

const KEY = 'pk-paths';
// One body every generation route reads: chat's `messages`, the Responses API's `input`, a legacy completion's `prompt`
// (Anthropic reads `messages`).
const CHAT = { model: 'x', messages: OPENING, input: OPENING, prompt: 'Refund A-1042.', max_tokens: 100, tools: TOOLS };
/** Each generation route, as the lenient upstream reads a path. */
const WIRES: Record<string, Wire> = { '/v1/chat/completions': 'chat', '/v1/completions': 'completions', '/v1/responses': 'responses', '/v1/messages': 'anthropic' };
let running: Running;

beforeAll(async () => {
  // The upstream is as lenient as a server can be: whatever it reads as its chat route answers with the hasty agent's
  // refund, which the workflow refuses before identity is verified. A leak is that refund reaching the client.
  // It answers its generation routes (the Anthropic one too) in their formats. Every other route passes through
  // (`/v1`), so a path the proxy reads as another route reaches that upstream too.
  running = await startProxy(hastyAgent, { proxy: { proxyKeys: [KEY], passthrough: ['/v1'] }, upstream: { wireOf: (path) => WIRES[lenientPath(path)] }, anthropic: true });
});
afterAll(() => running.close());

const leaked = (text: string) => text.includes('"issue_refund"');

describe('request paths', () => {
  it('without a key, a crafted path gets a 401 and never reaches the upstream', async () => {
    for (const target of ['/%761/../chat/completions', '/v1/chat/completions', '/x/../v1/chat/completions', '/%2e%2e/v1/chat/completions', '/healthz/../v1/chat/completions', '/metrics/../v1/models']) {
      const before = running.upstream.requests.length;
      const response = await rawRequest(running.url, { target, body: CHAT });
      expect(response.status, target).toBe(401);
      expect(running.upstream.requests.length, target).toBe(before);
    }
  });

  it.each([
    '/v1/./chat/completions',
    '/v1/x/../chat/completions',
    '/v1/%2e/chat/completions',
    '/v1/%2E%2E/v1/chat/completions',
    '/v1//chat/completions',
    '/v1/chat/completions/',
    '/v1/Chat/Completions',
    '/v1/chat/completions;x=1',
    '/v1/chat/completions.',
    '/v1/chat/completions%20',
    '/%761/chat/completions',
    '/v1/x/..;/chat/completions',
    '/v1/x/..%20/chat/completions',
    '/v1/x/%2e%2e;a/chat/completions',
  ])('%s is monitored as the chat route and sent upstream by its canonical path', async (target) => {
    const before = running.upstream.requests.length;
    const response = await rawRequest(running.url, { target, headers: { 'x-panoptes-key': KEY }, body: CHAT });
    expect(response.status).toBe(200);
    expect(leaked(response.text)).toBe(false);
    expect(JSON.parse(response.text).choices[0].message.content).toBe("I can't do that.");
    expect(running.upstream.requests.slice(before).map((request) => request.path)).toEqual(['/v1/chat/completions']);
  });

  it.each([
    ['/v1/Responses', '/v1/responses'],
    ['/v1/x/..;/responses', '/v1/responses'],
    ['/v1/responses;x=1', '/v1/responses'],
    ['/V1/Messages.', '/v1/messages'],
    ['/v1/models/..%20/messages', '/v1/messages'],
    ['/v1/Completions%20', '/v1/completions'],
  ])('%s is monitored as %s and sent upstream by that path', async (target, route) => {
    const before = running.upstream.requests.length;
    const response = await rawRequest(running.url, { target, headers: { 'x-panoptes-key': KEY }, body: CHAT });
    expect(response.status).toBe(200);
    expect(leaked(response.text)).toBe(false);
    if (route !== '/v1/completions') expect(response.text).toContain("I can't do that.");
    expect(running.upstream.requests.slice(before).map((request) => request.path)).toEqual([route]);
  });

  it.each([
    ['/v1/chat%2Fcompletions', 400, 'invalid_path'],
    ['/v1/chat%5Ccompletions', 400, 'invalid_path'],
    ['/v1/chat\\completions', 400, 'invalid_path'],
    ['/v1/%00/chat/completions', 400, 'invalid_path'],
    ['/v1/%zz/chat/completions', 400, 'invalid_path'],
    ['/v1/../../chat/completions', 400, 'invalid_path'],
    ['/v1/../admin/secrets', 404, 'not_found'],
    ['/v1/%2e%2e/admin/secrets', 404, 'not_found'],
    ['http://127.0.0.1:1/v1/chat/completions', 400, 'invalid_path'],
  ])('%s is refused (%i %s) and never reaches the upstream', async (target, status, code) => {
    const before = running.upstream.requests.length;
    const response = await rawRequest(running.url, { target, headers: { 'x-panoptes-key': KEY }, body: CHAT });
    expect(response.status).toBe(status);
    expect(JSON.parse(response.text).error.code).toBe(code);
    expect(running.upstream.requests.length).toBe(before);
  });

  it.each(['PUT', 'GET', 'PATCH', 'DELETE'])('%s on a generation route (any spelling) is refused with 405, never passed through', async (method) => {
    for (const target of ['/v1/chat/completions', '/v1/CHAT/completions', '/v1/chat/completions;a', '/v1/responses', '/v1/Messages', '/v1/completions.']) {
      const before = running.upstream.requests.length;
      const response = await rawRequest(running.url, { method, target, headers: { 'x-panoptes-key': KEY }, ...(method === 'PUT' || method === 'PATCH' ? { body: CHAT } : {}) });
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('POST');
      expect(running.upstream.requests.length).toBe(before);
    }
  });

  it('health and metrics need no key, by their exact paths only', async () => {
    expect((await rawRequest(running.url, { method: 'GET', target: '/healthz' })).status).toBe(200);
    expect((await rawRequest(running.url, { method: 'GET', target: '/metrics' })).status).toBe(200);
    expect((await rawRequest(running.url, { method: 'GET', target: '/v1/models' })).status).toBe(401);
  });

  it('fuzz: no request without the key reaches the upstream, and no refused call reaches the client', async () => {
    const segment = fc.constantFrom('v1', 'V1', '%761', 'chat', 'Chat', 'CHAT', 'completions', 'responses', 'Responses', 'messages', 'MESSAGES;x', 'responses.', 'completions;a', 'completions.', '%63ompletions', '.', '..', '%2e', '%2E%2e', '%2f', '%2F', '%5c', '', 'admin', 'x', '%00', '%20', 'healthz', 'metrics', '%252e', '..;', '%2e%2e;x', '..%20');
    const target = fc.tuple(fc.array(segment, { minLength: 1, maxLength: 7 }), fc.constantFrom('', '/', '?a=1', '/?b=../x')).map(([segments, tail]) => `/${segments.join('/')}${tail}`);
    await fc.assert(
      fc.asyncProperty(target, fc.boolean(), fc.constantFrom('POST', 'GET', 'PUT'), async (path, withKey, method) => {
        const before = running.upstream.requests.length;
        const response = await rawRequest(running.url, { method, target: path, headers: withKey ? { 'x-panoptes-key': KEY } : {}, ...(method === 'GET' ? {} : { body: CHAT }) });
        const reached = running.upstream.requests.slice(before);
        if (!withKey) expect(reached).toEqual([]);
        expect(leaked(response.text)).toBe(false);
        // What reached the upstream went by a canonical path: no dot segment, no empty segment, no encoded slash.
        for (const request of reached) expect(request.path.split('?')[0]).toBe((normaliseTarget(request.path) as { path: string }).path);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('normaliseTarget', () => {
  it('is idempotent, and never leaves a dot segment or an empty one', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('v1', 'a', '.', '..', '%2e', '', 'B', '%41', '~', 'x y', '%25'), { maxLength: 8 }), (segments) => {
        const first = normaliseTarget(`/v1/${segments.join('/')}`);
        if ('refused' in first) return;
        expect(normaliseTarget(first.path)).toEqual({ path: first.path, query: '' });
        expect(first.path === '/' || !first.path.split('/').slice(1).some((part) => part === '' || part === '.' || part === '..')).toBe(true);
      }),
    );
  });
});
