import { type Diagnostic } from '../diagnostics/index.js';
import { readFailureDiagnostic } from '../diagnostics/read-failure.js';
import { RulebaseError } from '../errors/index.js';
import { assertMaxBytes, DEFAULT_MAX_BYTES, readTextWithin } from '../limits/index.js';
import { analyzeRulebase, tooLargeDiagnostic, type ParseRulebaseOptions, type Rulebase } from './rulebase.js';

/** Options of {@link loadRulebase} and {@link checkRulebaseFile}: as for `parseRulebase`, the source defaulting to the path. */
export type LoadRulebaseOptions = ParseRulebaseOptions;

/**
 * Reads and checks a rulebase file. Fails at load time, never at the first tool call.
 * @param path The `.rules` file.
 * @param options The agent's tools, to check guard and data tool names.
 * @throws RulebaseError listing every error (or that the file cannot be read, or is over `maxBytes`: 1 MiB by default).
 * @throws {InvalidOptionError} for a `maxBytes` that is not a positive number.
 * @example
 * const rulebase = await loadRulebase('examples/airline/policy.rules', { tools: airlineTools });
 */
export async function loadRulebase(path: string, options: LoadRulebaseOptions = {}): Promise<Rulebase> {
  const source = options.source ?? path;
  const text = await readText(path, source, options.maxBytes);
  if (typeof text !== 'string') throw new RulebaseError([text]);
  const { rulebase, diagnostics } = analyzeRulebase(text, { ...options, source });
  if (rulebase === undefined) throw new RulebaseError(diagnostics);
  return rulebase;
}

/**
 * Every diagnostic for a rulebase file, errors and warnings, sorted by position; an unreadable file is one error.
 * Never throws: this backs `panoptes rules check <file>`, which prints each with `formatDiagnostic`.
 * @param path The `.rules` file.
 * @param options The agent's tools, to check guard and data tool names.
 */
export async function checkRulebaseFile(path: string, options: LoadRulebaseOptions = {}): Promise<Diagnostic[]> {
  const source = options.source ?? path;
  const text = await readText(path, source, options.maxBytes);
  if (typeof text !== 'string') return [text];
  return analyzeRulebase(text, { ...options, source }).diagnostics;
}

/** The file's text, or why there is none; a file over `maxBytes` is refused from its size, without reading it. */
async function readText(path: string, source: string, maxBytes = DEFAULT_MAX_BYTES): Promise<string | Diagnostic> {
  assertMaxBytes(maxBytes);
  try {
    const read = await readTextWithin(path, maxBytes, 'rulebase');
    return 'text' in read ? read.text : tooLargeDiagnostic(read.tooLarge, source);
  } catch (error) {
    return readFailureDiagnostic(source, error, 'check the path, or run `panoptes init` to write a starter rulebase');
  }
}
