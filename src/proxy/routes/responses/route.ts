/**
 * `POST /v1/responses`, the OpenAI Responses API: requests read and edited by request.ts, answers by answer.ts (JSON)
 * and stream-gate.ts (events); every response delivered is recorded (response-records.ts) for the requests that
 * continue it by `previous_response_id`.
 * @module
 */
import { refusalReasons } from '../../enforce.js';
import type { GenerationRoute } from '../route.js';
import { readResponse } from './answer.js';
import { offeredResponseNames, type ResponseCall } from './items.js';
import { responsesContinuation, responsesEdited, responsesMessages, responsesNamedSession, responsesProblem, type ResponsesRequest } from './request.js';
import type { ResponseRecords, WithheldCall } from './response-records.js';
import { ResponsesStreamGate } from './stream-gate.js';

/** The Responses API route, recording its responses in `records`. */
export function responsesRoute(records: ResponseRecords): GenerationRoute<ResponsesRequest> {
  return {
    path: '/v1/responses',
    label: 'Responses API call',
    namedBy: "metadata.session_id, or 'conversation', or previous_response_id",
    errors: 'openai',
    problem: responsesProblem,
    namedSession: responsesNamedSession,
    continuation: (body) => responsesContinuation(records, body),
    messages: (body) => responsesMessages(body).messages,
    edited: responsesEdited,
    offered(body) {
      const names = offeredResponseNames(body.tools, body.input);
      return { names, available: names ? [...names] : undefined };
    },
    read: readResponse,
    gate: (options) => new ResponsesStreamGate(options),
    async answered(id, sessionId, refused) {
      // Only function and custom tool calls can be answered by an output the proxy writes; a built-in call's output
      // (a screenshot, a command's result) is the client's to make. The output goes to the model, so it is the reason.
      const withheld: WithheldCall[] = [];
      for (const [call, refusal] of refused) {
        const { itemType } = call as ResponseCall;
        if (call.id !== undefined && (itemType === 'function_call' || itemType === 'custom_tool_call')) withheld.push({ callId: call.id, kind: itemType, output: refusalReasons([refusal]) });
      }
      await records.set(id, { sessionId, withheld });
    },
  };
}
