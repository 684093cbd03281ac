import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { guardTools } from '../../../adapters/ai-sdk/index.js';
import { emailWorld, INBOX, USER_PROMPT } from '../email-provenance.js';
import { callTool, refusalIn, say, sequenceModel } from './fixtures.js';

describe('provenance through AI SDK guardTools', () => {
  it("refuses the recipient an injected inbox message named, sends to the user's own", async () => {
    const { sentinel, sent } = emailWorld();
    const tools = {
      read_inbox: tool({ inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }), execute: async () => INBOX }),
      send_email: tool({
        inputSchema: jsonSchema<{ recipients: string[]; body: string }>({ type: 'object', properties: { recipients: { type: 'array', items: { type: 'string' } }, body: { type: 'string' } } }),
        execute: async ({ recipients }) => (sent.push(recipients), 'sent'),
      }),
    };
    const model = sequenceModel(
      callTool('read_inbox', 'c1'),
      callTool('send_email', 'c2', { recipients: ['eve@evil.example.com'], body: 'Q3 thread' }),
      callTool('send_email', 'c3', { recipients: ['bob@mycorp.com'], body: 'Revenue is up.' }),
      say('Done.'),
    );
    const result = await generateText({ model, tools: guardTools(tools, { sentinel }), prompt: USER_PROMPT, stopWhen: stepCountIs(5) });

    expect(sent).toEqual([['bob@mycorp.com']]);
    const refusal = refusalIn(result.steps[1]!.content, 'c2');
    expect(refusal).toMatchObject({ by: 'sentinel', tool: 'send_email', status: 'failed' });
    expect(refusal!.reason).toContain('a recipient must not come from untrusted content');
    expect(refusal!.reason).toContain(`recipients "eve@evil.example.com" came from read_inbox's result field body`);
    const chain = refusal!.blockers!.flatMap((blocker) => (blocker.kind === 'condition' ? (blocker.chain ?? []) : []));
    expect(chain).toEqual([{ argument: 'recipients', atom: 'eve@evil.example.com', tool: 'read_inbox', step: 2, path: 'body' }]);
  });
});
