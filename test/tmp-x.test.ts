import { it } from 'vitest';
import { connect } from 'node:net';
import { appendFileSync } from 'node:fs';
import { hastyAgent } from './proxy/fake-upstream.js';
import { startProxy } from './proxy/helpers.js';
it('x', async () => {
  const running = await startProxy(hastyAgent);
  const port = Number(new URL(running.url).port);
  const size = 11 * 1024 * 1024;
  for (const path of ['/v1/chat/completions', '/v1/embeddings']) {
  const out = await new Promise<string>((resolve) => {
    const s = connect(port, '127.0.0.1');
    let got = ''; let written = 0; let err = '';
    s.on('data', (c) => (got += c)); s.on('error', (e) => (err = String(e)));
    s.on('close', () => resolve(`written ${written}/${size} err=${err} got=${got.slice(0, 40)}`));
    s.write(`POST ${path} HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`);
    const chunk = Buffer.alloc(65536, 120);
    const pump = () => { while (written < size) { written += chunk.length; if (!s.write(chunk)) { s.once('drain', pump); return; } } setTimeout(() => s.end(), 200); };
    setTimeout(pump, 50);
  });
  appendFileSync('/tmp/x.log', path + ' ' + out + '\n');
  }
  await running.close();
});
