/** Server-sent events as the proxy writes them. @module */

/** The SSE line that ends an OpenAI stream. */
export const DONE_EVENT = 'data: [DONE]\n\n';

/** One server-sent event carrying `data` (a line of JSON). */
export function sseEvent(data: string): string {
  return `data: ${data}\n\n`;
}
