/**
 * `examples/airline/mcp-server.ts` run as a client would run it: a child process spoken to over stdio by the SDK's
 * own `Client`, which declares elicitation and approves the one form it is shown.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { EMMA, emmaBooking } from '../guards/airline-fixtures.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;

it('serves the airline tools over stdio, refuses what the policy forbids, and asks the user before a booking', async () => {
  const client = new Client({ name: 'host', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => (asked.push(request.params.message), { action: 'accept', content: { decision: 'approve' } }));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', TSX, 'examples/airline/mcp-server.ts', EMMA], cwd: ROOT, stderr: 'pipe' }));
  try {
    expect(client.getServerVersion()).toEqual({ name: 'airline', version: '1.0.0' });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['record_confirmation', 'book_reservation', 'cancel_reservation']));
    const foreign = await client.callTool({ name: 'get_user_details', arguments: { user_id: 'mia_li_3818' } });
    expect(foreign.isError).toBe(true);
    const booked = await client.callTool({ name: 'book_reservation', arguments: emmaBooking('2024-05-20') });
    expect(booked.isError).toBeFalsy();
    expect(asked).toEqual([expect.stringMatching(/^Book exactly this for user emma_smith_9363: book_reservation\(/)]);
  } finally {
    await client.close();
  }
}, 60_000);
