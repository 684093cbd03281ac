import { fileURLToPath } from 'node:url';
import { loadWorkflow, type Workflow } from '../../src/workflow/index.js';
import type { Transcript } from '../../src/audit/index.js';
import type { ChatMessage } from '../../src/messages/index.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The example support workflow the sample transcripts are written for. */
export function supportWorkflow(): Promise<Workflow> {
  return loadWorkflow(`${ROOT}examples/workflows/customer-support.yaml`);
}

export function transcript(messages: ChatMessage[], id = 't1'): Transcript {
  return { id, origin: { file: `${id}.json` }, messages, warnings: [] };
}

/** An OpenAI tool call with JSON-string arguments. */
export function toolCall(name: string, args: unknown = {}, id = `call_${name}`) {
  return { id, type: 'function', function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } };
}

/** A logger that keeps warnings instead of printing them. */
export function quietLogger(): { warn: (message: string) => void; warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message) => void warnings.push(message) };
}
