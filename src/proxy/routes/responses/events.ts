/**
 * Server-sent events of the Responses API as the proxy writes them: each named by its `type` (never by the name the
 * upstream gave it) and numbered in the order they leave (`sequence_number`), since the proxy takes events out and
 * puts its own in. Event shapes follow the `openai` package's `ResponseStreamEvent`.
 * @module
 */
import { record } from '../../answer-calls.js';

/** Writes the events of one stream, numbering them from 0. */
export class ResponseEventWriter {
  #next = 0;

  /** One event: `data` with its `sequence_number` set. */
  event(data: Record<string, unknown>): string {
    const numbered = { ...data, sequence_number: this.#next++ };
    return `event: ${String(data.type)}\ndata: ${JSON.stringify(numbered)}\n\n`;
  }

  /**
   * The events of one complete output item at `outputIndex`, as OpenAI streams it: added (empty), its text or arguments
   * as one delta and done, then done with the whole item. The client's accumulated item is exactly `item`.
   */
  item(item: Record<string, unknown>, outputIndex: number): string {
    const itemId = typeof item.id === 'string' ? item.id : '';
    const at = { item_id: itemId, output_index: outputIndex };
    let out = '';
    switch (item.type) {
      case 'message': {
        const parts = Array.isArray(item.content) ? item.content : [];
        out += this.event({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
        parts.forEach((value: unknown, contentIndex: number) => {
          const part = record(value) ?? {};
          const where = { ...at, content_index: contentIndex };
          if (part.type === 'output_text') {
            const text = typeof part.text === 'string' ? part.text : '';
            out += this.event({ type: 'response.content_part.added', ...where, part: { ...part, text: '' } });
            out += this.event({ type: 'response.output_text.delta', ...where, delta: text, logprobs: [] });
            out += this.event({ type: 'response.output_text.done', ...where, text, logprobs: [] });
          } else if (part.type === 'refusal') {
            const refusal = typeof part.refusal === 'string' ? part.refusal : '';
            out += this.event({ type: 'response.content_part.added', ...where, part: { ...part, refusal: '' } });
            out += this.event({ type: 'response.refusal.delta', ...where, delta: refusal });
            out += this.event({ type: 'response.refusal.done', ...where, refusal });
          } else {
            out += this.event({ type: 'response.content_part.added', ...where, part });
          }
          out += this.event({ type: 'response.content_part.done', ...where, part });
        });
        break;
      }
      case 'function_call': {
        const args = typeof item.arguments === 'string' ? item.arguments : '';
        out += this.event({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, arguments: '', status: 'in_progress' } });
        out += this.event({ type: 'response.function_call_arguments.delta', ...at, delta: args });
        out += this.event({ type: 'response.function_call_arguments.done', ...at, name: item.name, arguments: args });
        break;
      }
      case 'custom_tool_call': {
        const input = typeof item.input === 'string' ? item.input : '';
        out += this.event({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, input: '' } });
        out += this.event({ type: 'response.custom_tool_call_input.delta', ...at, delta: input });
        out += this.event({ type: 'response.custom_tool_call_input.done', ...at, input });
        break;
      }
      default:
        out += this.event({ type: 'response.output_item.added', output_index: outputIndex, item });
    }
    return out + this.event({ type: 'response.output_item.done', output_index: outputIndex, item });
  }
}

/** The type of the event that ends a stream, by the response's `status`. */
export function terminalType(response: Record<string, unknown>): string {
  if (response.status === 'incomplete') return 'response.incomplete';
  if (response.status === 'failed') return 'response.failed';
  return 'response.completed';
}

/**
 * A checked response as the events of a stream, for a client that asked for one when the upstream answered with
 * JSON: created (no output yet), each output item, and the event that ends it with the whole response. A body that
 * is no response (an error object) goes as one event, which OpenAI clients raise.
 */
export function responseEvents(response: Record<string, unknown>): string {
  if (!Array.isArray(response.output)) return `data: ${JSON.stringify(response)}\n\n`;
  const writer = new ResponseEventWriter();
  let out = writer.event({ type: 'response.created', response: { ...response, status: 'in_progress', output: [] } });
  response.output.forEach((item: unknown, at: number) => (out += writer.item(record(item) ?? {}, at)));
  return out + writer.event({ type: terminalType(response), response });
}
