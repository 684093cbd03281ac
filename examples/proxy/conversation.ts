/**
 * `npm run example:proxy`: the support demo through `panoptes serve`, with the official `openai` client, offline.
 *
 * A scripted OpenAI-compatible upstream (a hasty agent that goes straight for the refund) runs on loopback; the proxy
 * starts from examples/proxy/panoptes.yaml with the upstream and port overridden, as flags would; the client changes
 * nothing but its base URL. Panoptes takes the early refund out of the response, corrects the next call, and lets the
 * procedure through. Pass `--stream` to run it streamed.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import pc from 'picocolors';
import { loadServeConfig, startServe } from 'panoptes/proxy';

const CONFIG = fileURLToPath(new URL('./panoptes.yaml', import.meta.url));
const stream = process.argv.includes('--stream');

/** The upstream's model: refunds at once unless the system prompt says to verify first (as Panoptes' guidance does). */
function hastyModel(messages: Array<{ role: string; content?: unknown; tool_call_id?: string }>) {
  const system = messages.filter((message) => message.role === 'system').map((message) => String(message.content)).join('\n');
  const ran = (prefix: string) => messages.some((message) => message.role === 'tool' && String(message.tool_call_id).startsWith(prefix));
  const turn = messages.filter((message) => message.role === 'assistant').length;
  if (ran('call_refund')) return { content: 'Your refund of $42 is on its way. Is there anything else I can help with?' };
  if (ran('call_verify') || !system.includes('verify')) return { content: null, tool_calls: [{ id: `call_refund_${turn}`, type: 'function', function: { name: 'issue_refund', arguments: '{"order":"A-1042","amount":42}' } }] };
  return { content: 'First I need to confirm who you are.', tool_calls: [{ id: `call_verify_${turn}`, type: 'function', function: { name: 'verify_identity', arguments: '{"account":"ACC-77"}' } }] };
}

/** A minimal OpenAI-compatible server for the scripted model, JSON or SSE. */
async function startUpstream() {
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (data: Buffer) => (raw += data.toString()));
    request.on('end', () => {
      const body = JSON.parse(raw) as { messages: Array<{ role: string; content?: unknown }>; stream?: boolean };
      const message = { role: 'assistant', ...hastyModel(body.messages) };
      const finish = message.tool_calls ? 'tool_calls' : 'stop';
      const base = { id: 'chatcmpl-demo', created: 1_700_000_000, model: 'scripted' };
      if (!body.stream) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }] }));
        return;
      }
      const chunk = (delta: object, finishReason: string | null = null) => `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chunk({ role: 'assistant', content: message.content ?? '' }));
      message.tool_calls?.forEach((call, index) => response.write(chunk({ tool_calls: [{ index, ...call }] })));
      response.end(chunk({}, finish) + 'data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => new Promise((resolve) => server.close(resolve)) };
}

async function main() {
  const upstream = await startUpstream();
  const config = await loadServeConfig({ configPath: CONFIG, env: {}, flags: { upstream: upstream.url, port: '0' } });
  const proxy = await startServe(config);
  console.log(pc.dim(`panoptes serve listening on ${proxy.url} (upstream ${upstream.url}); stream: ${stream}\n`));

  const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-offline-demo' });
  const tools = ['verify_identity', 'issue_refund'].map((name) => ({ type: 'function' as const, function: { name, parameters: { type: 'object', properties: {} } } }));
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a support agent for an online shop. Be brief.' },
    { role: 'user', content: 'Hi, I want a refund for order A-1042, it arrived broken.' },
  ];
  console.log(`${pc.bold('customer')}  ${String(messages[1]!.content)}`);
  let answered = 0;
  for (let call = 0; call < 8 && answered < 2; call++) {
    const completion = stream
      ? await client.chat.completions.stream({ model: 'scripted', messages, tools }).finalChatCompletion()
      : await client.chat.completions.create({ model: 'scripted', messages, tools });
    const message = completion.choices[0]!.message;
    messages.push({ role: 'assistant', content: message.content ?? '', ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}) });
    if (message.content) console.log(`${pc.bold(pc.cyan('agent'))}     ${message.content}`);
    for (const toolCall of message.tool_calls ?? []) {
      if (toolCall.type !== 'function') continue;
      const output = toolCall.function.name === 'issue_refund' ? 'Refund of $42 issued.' : 'Identity verified.';
      console.log(`${pc.dim('tool')}      ${pc.dim(`${toolCall.function.name} -> ${output}`)}`);
      messages.push({ role: 'tool', tool_call_id: toolCall.id, content: output });
    }
    if (message.tool_calls?.length) continue;
    answered++;
    if (answered === 1) {
      messages.push({ role: 'user', content: 'OK, please go ahead.' });
      console.log(`${pc.bold('customer')}  OK, please go ahead.`);
    }
  }
  const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
  console.log(pc.dim(`\n${metrics.split('\n').filter((line) => /^panoptes_proxy_(refused|interventions)/.test(line)).join('\n')}`));
  await proxy.close();
  await upstream.close();
}

await main();
