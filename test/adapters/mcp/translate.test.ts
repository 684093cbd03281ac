import { describe, expect, it } from 'vitest';
import { refusalOf, refusalResult, resultData, toCoreToolCall } from '../../../adapters/mcp/translate.js';

describe('MCP translation', () => {
  it('reads a call request as a core tool call', () => {
    expect(toCoreToolCall({ name: 'issue_refund', arguments: { booking_id: 'B1' } })).toEqual({ name: 'issue_refund', args: { booking_id: 'B1' } });
    expect(toCoreToolCall({ name: 'ping' })).toEqual({ name: 'ping', args: {} });
  });

  it('writes a refusal as an isError result that carries it', () => {
    const refusal = { by: 'monitor' as const, tool: 'issue_refund', reason: 'Verify first.', constraints: ['verify_first'] };
    const result = refusalResult(refusal);
    expect(result).toEqual({ content: [{ type: 'text', text: 'Verify first.' }], isError: true, _meta: { 'panoptes/refusal': refusal } });
    expect(refusalOf(JSON.parse(JSON.stringify(result)))).toEqual(refusal);
    expect(refusalOf({ content: [], _meta: { other: 1 } })).toBeUndefined();
  });

  it('gives data tools structured content first, then text parsed as JSON, then the text', () => {
    expect(resultData('t', { content: [{ type: 'text', text: 'ignored' }], structuredContent: { status: 'active' } })).toEqual({ status: 'active' });
    expect(resultData('t', { content: [{ type: 'text', text: '{"status":"active"}' }] })).toEqual({ status: 'active' });
    expect(resultData('t', { content: [{ type: 'text', text: 'active' }, { type: 'image', data: '', mimeType: 'image/png' }] })).toBe('active');
    expect(() => resultData('get_booking', { content: [{ type: 'text', text: 'No booking B9.' }], isError: true })).toThrow('get_booking failed: No booking B9.');
    expect(() => resultData('get_booking', { content: [], isError: true })).toThrow('get_booking failed: the server gave no reason');
  });
});
