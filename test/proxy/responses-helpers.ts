/** The support demo over the Responses API, as an agent on the official `openai` client runs it. */
import type OpenAI from 'openai';
import type { FunctionTool, Response, ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';

export const INSTRUCTIONS = 'You are a support agent for an online shop. Be brief.';
export const OPENING_INPUT: ResponseInputItem[] = [{ role: 'user', content: 'Hi, I want a refund for order A-1042, it arrived broken.' }];
export const RESPONSE_TOOLS: FunctionTool[] = ['verify_identity', 'issue_refund'].map((name) => ({ type: 'function', name, parameters: { type: 'object', properties: {} }, strict: false }));

/** One response through the official client: `responses.create`, or `responses.stream` with every event it saw. */
export async function respond(client: OpenAI, params: Record<string, unknown>, { stream, headers }: { stream: boolean; headers?: Record<string, string> }): Promise<{ response: Response; events: ResponseStreamEvent[] }> {
  const body = { model: 'fake-model', instructions: INSTRUCTIONS, tools: RESPONSE_TOOLS, ...params } as Parameters<OpenAI['responses']['create']>[0];
  const options = headers ? { headers } : undefined;
  if (!stream) return { response: (await client.responses.create({ ...body, stream: false }, options)) as Response, events: [] };
  const runner = client.responses.stream(body as Parameters<OpenAI['responses']['stream']>[0], options);
  const events: ResponseStreamEvent[] = [];
  for await (const event of runner) events.push(event);
  return { response: await runner.finalResponse(), events };
}

/** The function calls of a response's output. */
export function functionCalls(response: Response) {
  return response.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
}

/**
 * The customer's side of the demo: each function call is run and its output sent back; a plain answer goes to the
 * customer, who says "go ahead" once; the second plain answer ends it. With `chain`, each request sends only what is
 * new and names the response it continues (`previous_response_id`), as an agent on OpenAI's stored responses does;
 * without, it sends the whole conversation every time.
 */
export async function runResponsesDemo(client: OpenAI, { stream, chain = false, headers }: { stream: boolean; chain?: boolean; headers?: Record<string, string> }) {
  const history: ResponseInputItem[] = [...OPENING_INPUT];
  let input: ResponseInputItem[] = [...OPENING_INPUT];
  let previous: string | undefined;
  const answers: Array<{ response: Response; events: ResponseStreamEvent[] }> = [];
  let plainAnswers = 0;
  for (let call = 0; call < 8; call++) {
    const answer = await respond(client, { input: chain ? input : history, ...(chain && previous ? { previous_response_id: previous } : {}) }, { stream, ...(headers ? { headers } : {}) });
    answers.push(answer);
    previous = answer.response.id;
    history.push(...(answer.response.output as ResponseInputItem[]));
    const next: ResponseInputItem[] = functionCalls(answer.response).map((item) => ({ type: 'function_call_output', call_id: item.call_id, output: item.name === 'issue_refund' ? 'Refund of $42 issued.' : 'Identity verified.' }));
    if (next.length === 0) {
      plainAnswers++;
      if (plainAnswers === 2) break;
      next.push({ role: 'user', content: 'OK, please go ahead.' });
    }
    history.push(...next);
    input = next;
  }
  return { answers };
}
