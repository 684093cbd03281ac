/** What the conversation-rubric tests of the proxy share: the rubrics, a scripted judge of them, a drifting agent. */
import { createJudge, parseRubrics, scriptedJudge, type JudgeModelRequest } from '../../src/index.js';
import type { RequestBody, Script } from './fake-upstream.js';

/** One conversation rubric, judged every second answer. */
export const ON_TOPIC = [
  'version: "1"',
  'rubrics:',
  '  - id: on_topic',
  "    description: The agent stays on the customer's request.",
  '    scope: conversation',
  '    every_turns: 2',
  '    criteria:',
  '      - { id: topic, description: Every assistant message serves the request., scale: binary }',
  '    pass_at: 1',
  '    on_fail: intervene',
  '    on_error: allow',
].join('\n');

/** The same, judged every fifth answer, beside a turn rubric that only warns about talk of the weather. */
export const WARNED = `${ON_TOPIC.replace('every_turns: 2', 'every_turns: 5')}
  - id: no_weather
    description: The response does not talk about the weather.
    scope: turn
    criteria:
      - { id: no_weather, description: The response does not mention the weather., scale: binary }
    pass_at: 1
    on_fail: warn
    on_error: allow`;

export const DRIFT = 'The agent talked about the weather instead of the order.';

/** The scripted judge: the conversation (or a response) fails when it talks about the weather. */
function judgeAnswer({ rubric, judged }: JudgeModelRequest) {
  const weather = /weather/i.test(judged.split('## The conversation')[1] ?? judged.split('## The response')[1] ?? '');
  const id = rubric.scope === 'conversation' ? 'topic' : 'no_weather';
  return { criteria: [{ id, score: weather ? 0 : 1, reasoning: weather ? DRIFT : 'On topic.', evidence: [] }], confidence: 0.9 };
}

/** A judge of `rubrics` over the scripted answers, with the rubric of each model call it made. */
export function conversationJudge(rubrics = ON_TOPIC) {
  const calls: string[] = [];
  const judge = createJudge({
    model: scriptedJudge((request) => {
      calls.push(request.rubric.id);
      return judgeAnswer(request);
    }),
    rubrics: parseRubrics(rubrics, { source: 'conversation.rubrics.yaml' }),
    logger: { warn: () => undefined },
  });
  return { judge, calls };
}

/** The agent: its first answer is about the order, its second drifts to the weather, later ones return to the order. */
export const driftingAgent: Script = (body: RequestBody) => {
  const items = (body.messages ?? (body.input as RequestBody['messages'] | undefined) ?? []) as RequestBody['messages'];
  const answered = items.filter((message) => message.role === 'assistant').length;
  return { content: answered === 1 ? 'By the way, the weather is lovely today.' : 'Let me look at your order.' };
};

/** The text of the system prompt the upstream received in a request (its system messages, instructions or system). */
export function systemOf(request: { body: RequestBody | undefined } | undefined): string {
  const body = request?.body;
  const messages = (body?.messages ?? []).filter((message) => message.role === 'system').map((message) => JSON.stringify(message.content));
  return [...messages, JSON.stringify(body?.instructions ?? ''), JSON.stringify(body?.system ?? '')].join('\n');
}
