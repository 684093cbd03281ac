/** Reading AgentDojo run files: one JSON run per line, gzipped or not, filtered to the usable runs. */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { parse as parseYaml } from 'yaml';

export interface ToolCallRecord {
  function: string;
  args: Record<string, unknown>;
  id?: string | null;
}

export interface RunMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: unknown;
  tool_calls?: ToolCallRecord[] | null;
  tool_call_id?: string | null;
  tool_call?: ToolCallRecord | null;
  error?: string | null;
}

export interface Run {
  suite_name: string;
  pipeline_name: string;
  user_task_id: string;
  injection_task_id: string | null;
  attack_type: string | null;
  injections: Record<string, string>;
  messages: RunMessage[];
  error: string | null;
  utility: boolean;
  security: boolean;
  path: string;
}

/** The four kinds of usable run the README names. */
export type RunKind = 'attacked' | 'benign' | 'goal-as-prompt';

/** The README's filter: no error, some messages, not a denial-of-service attack. */
export function isUsable(run: Run): boolean {
  return run.error == null && Array.isArray(run.messages) && run.messages.length > 0 && !(run.attack_type ?? '').includes('dos');
}

export function kindOf(run: Run): RunKind {
  if (run.attack_type) return 'attacked';
  return run.user_task_id.startsWith('injection_task') ? 'goal-as-prompt' : 'benign';
}

/** Every run of a `.jsonl` or `.jsonl.gz` file, in file order; a line that does not parse is counted and skipped. */
export async function* readRuns(path: string, onBadLine: () => void): AsyncGenerator<Run> {
  const raw = createReadStream(path);
  const input = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    try {
      yield JSON.parse(line) as Run;
    } catch {
      onBadLine();
    }
  }
}

/** A message's text: a string, null, or (some pipelines) a list of text blocks. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((block) => (typeof block === 'string' ? block : typeof block === 'object' && block !== null ? String((block as { content?: unknown; text?: unknown }).content ?? (block as { text?: unknown }).text ?? '') : '')).join('\n');
  }
  return '';
}

/**
 * A tool output as the tool returned it, as far as it can be told: AgentDojo prints results as YAML (lists and
 * records) or Python reprs (dicts of strings), some pipelines wrap them in `<<` ... `>>`. Structure lets `source
 * tool.field` declarations apply; anything that does not parse stays text.
 */
export function parseToolOutput(text: string): unknown {
  let body = text.trim();
  if (body.startsWith('<<') && body.endsWith('>>')) body = body.slice(2, -2).trim();
  if (body === '') return body;
  // A one-line `Note: ...` is a sentence, not a record.
  if (body.startsWith('{') || body.startsWith('[') || body.startsWith('- ') || (body.includes('\n') && /^[A-Za-z_][\w ]*:\s/.test(body))) {
    try {
      const parsed: unknown = parseYaml(body, { strict: false, uniqueKeys: false, maxAliasCount: 100 });
      if (parsed !== null && typeof parsed === 'object') return parsed;
    } catch {
      // Not YAML after all (free text with a colon): keep the text.
    }
  }
  return body;
}

/** Lower case letters and digits only: how planted text is found again after YAML and repr re-formatting. */
export function alnum(text: string): string {
  // Python reprs and YAML print line breaks as `\n`: without them, "gorgeous\nand" would read "gorgeousnand".
  return text.replace(/\\[nrt]/g, ' ').toLowerCase().replace(/[^a-z0-9]/g, '');
}
