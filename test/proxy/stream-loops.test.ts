/**
 * Issue 15, item 8, through the proxy: with loop detection on, a streamed response that starts chanting is cut short
 * (the upstream request aborted, a finish chunk of Panoptes' own), classified as it stands, and the hint reaches the
 * next request. Real HTTP on loopback and the official `openai` client.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { streamEvents } from './fake-upstream.js';
import { OPENING, startProxy, TOOLS, type Running } from './helpers.js';

const CHANT = 'Let me check the refund policy for this order once more before I answer. ';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('the proxy cuts a chanting stream short', () => {
  it('aborts the upstream, ends the stream with finish_reason stop, and hints on the next call', async () => {
    const upstreamStream = { written: 0, total: 0, aborted: false };
    running = await startProxy(
      (body, _request, response) => {
        const system = String(body.messages[0]?.content ?? '');
        if (system.includes('repeats the same passage')) return { content: 'I can refund order A-1042 once I have verified who you are.' };
        const events = streamEvents({ content: CHANT.repeat(300) });
        upstreamStream.total = events.length;
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const next = () => {
          if (response.destroyed) return void (upstreamStream.aborted = true); // the proxy hung up on it
          if (upstreamStream.written === events.length) return response.end();
          response.write(`data: ${events[upstreamStream.written++]}\n\n`);
          setTimeout(next, 1); // paced like a model, so the cut shows before the upstream has written it all
        };
        next();
        return 'handled';
      },
      { monitor: { loops: true } },
    );
    const stream = running.client.chat.completions.stream({ model: 'fake-model', messages: OPENING });
    const first = await stream.finalChatCompletion();
    const text = first.choices[0]!.message.content ?? '';
    expect(first.choices[0]!.finish_reason).toBe('stop');
    expect(text.startsWith(CHANT.repeat(10).trim().slice(0, 100))).toBe(true);
    expect(text.length).toBeLessThan(CHANT.length * 300 / 2);
    await vi.waitFor(() => expect(upstreamStream.aborted).toBe(true));
    expect(upstreamStream.written).toBeLessThan(upstreamStream.total);

    const second = await running.client.chat.completions.create({ model: 'fake-model', messages: [...OPENING, { role: 'assistant', content: text }, { role: 'user', content: 'Hello?' }] });
    expect(second.choices[0]!.message.content).toBe('I can refund order A-1042 once I have verified who you are.');
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toContain('panoptes_proxy_streams_cut_for_loops_total 1');
  });

  it('streams the whole response when loop detection is off', async () => {
    running = await startProxy(() => ({ content: CHANT.repeat(40) }));
    const stream = running.client.chat.completions.stream({ model: 'fake-model', messages: OPENING });
    const completion = await stream.finalChatCompletion();
    expect(completion.choices[0]!.message.content).toBe(CHANT.repeat(40));
  });
});

describe('the proxy tells the loop detector which tools the request offered', () => {
  it('withholds each call to a tool the request did not offer, yet counts it: a hint at the 2nd, a stop after the 3rd', async () => {
    running = await startProxy(() => ({ content: '', toolCalls: [{ name: 'lookup_order_history', args: { order: 'A-1042' } }] }), { monitor: { loops: true } });
    const messages = [...OPENING];
    for (let call = 0; call < 3; call++) {
      const completion = await running.client.chat.completions.create({ model: 'fake-model', messages, tools: TOOLS });
      const { message } = completion.choices[0]!;
      expect(message.tool_calls ?? []).toEqual([]);
      expect(message.content).toBe("I can't do that.");
      messages.push({ role: 'assistant', content: message.content });
    }
    const systemOf = (index: number) => String(running!.upstream.requests[index]!.body!.messages[0]!.content);
    // The reason reaches the model on the next call, once, however often the same call was refused.
    expect(systemOf(1).split('lookup_order_history was refused: it is not one of the tools this request offered')).toHaveLength(2);
    expect(systemOf(2).split('lookup_order_history was refused: it is not one of the tools this request offered')).toHaveLength(2);
    expect(systemOf(2)).toContain('the available tools are `verify_identity`, `issue_refund`');
    const refused = await running.client.chat.completions.create({ model: 'fake-model', messages, tools: TOOLS }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 403, error: { type: 'panoptes_violation', code: 'loop_detected' } });
    expect(running.upstream.requests).toHaveLength(3);
  });
});
