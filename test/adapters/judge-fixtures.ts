/** Judges for the host tests: the e-mail rubric of examples/rubrics, a scripted stand-in for an LLM, and rubrics whose answers a test sets. */
import { fileURLToPath } from 'node:url';
import { createJudge, loadRubrics, parseRubrics, scriptedJudge, type JudgeModel, type JudgeModelRequest, type JudgeOptions } from '../../src/index.js';

export const EMAIL_RUBRICS = fileURLToPath(new URL('../../examples/rubrics/email.rubrics.yaml', import.meta.url));

/** Stand-in for an LLM on the e-mail rubric: the mail is requested when its recipient is in the user's own requests. */
export function mailAnswer({ judged }: Pick<JudgeModelRequest, 'judged'>) {
  const requests = judged.slice(0, judged.indexOf('## Recent tool results'));
  const recipient = /"to":"([^"]+)"/.exec(judged)?.[1] ?? '';
  const requested = recipient !== '' && requests.includes(recipient);
  return {
    criteria: [
      { id: 'requested', score: requested ? 1 : 0, reasoning: requested ? 'The user named this recipient.' : 'The user never named this recipient.', evidence: requested ? [recipient] : [] },
      { id: 'no_third_party_data', score: 1, reasoning: 'No customer data in the body.', evidence: [] },
    ],
    confidence: 0.8,
  };
}

/** A judge of the e-mail rubric (on_fail: ask, on_error: deny) with the scripted stand-in, counting its model calls. */
export async function mailJudge(options: Partial<JudgeOptions> = {}) {
  const asked: string[] = [];
  const model = scriptedJudge((request) => (asked.push(request.judged), mailAnswer(request)));
  const judge = createJudge({ model, rubrics: await loadRubrics(EMAIL_RUBRICS), logger: { warn: () => {} }, ...options });
  return { judge, asked };
}

/**
 * One tool_call rubric on `tool` with the given `on_fail` and `on_error`, one binary criterion `ok`.
 * @example
 * rubricsFor('send_email', 'block', 'deny')
 */
export function rubricsFor(tool: string, onFail: 'warn' | 'intervene' | 'block' | 'ask', onError: 'allow' | 'deny' | 'ask') {
  return parseRubrics(`
rubrics:
  - id: ${tool}_check
    description: The ${tool} call is what the user asked for.
    scope: tool_call
    applies_to: { tools: [${tool}] }
    criteria: [{ id: ok, description: the call serves the user's request }]
    pass_at: 1
    on_fail: ${onFail}
    on_error: ${onError}
`);
}

/** A binary verdict on the criterion `ok`. */
export const okVerdict = (score: 0 | 1, reasoning = score ? 'It is what the user asked for.' : 'The user did not ask for this.') => ({ criteria: [{ id: 'ok', score, reasoning, evidence: [] }], confidence: 0.9 });

/** A judge model that never answers (it honours the abort, as a real one should). */
export const hangingModel: JudgeModel = Object.assign((request: JudgeModelRequest) => new Promise<never>((_resolve, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason as Error))), { modelId: 'hanging' });

/** A judge model whose provider is down. */
export const failingModel: JudgeModel = Object.assign(async () => {
  throw new Error('provider down');
}, { modelId: 'failing' });

/** A logger that keeps what it is told. */
export function quietLogger() {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
}
