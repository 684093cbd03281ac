import { InvalidOptionError } from '../errors/index.js';

/**
 * A call that legitimately repeats: a tool by name (every call to it), or one action of a tool, chosen by a
 * predicate over the call's arguments (`{ tool: 'browser', when: (args) => args.action === 'scroll_down' }`), so a
 * page being scrolled is not a loop while a repeated click still is.
 */
export type LoopExemption = string | { tool: string; when?: (args: Record<string, unknown>) => boolean };

/** Decides whether a call is exempt. @internal */
export type ExemptionTest = (call: { name: string; args?: unknown }) => boolean;

/**
 * Checks the exemptions and builds the test. A `when` that throws leaves the call checked: the loop detector fails
 * open towards detection there, as an exemption that cannot be decided is not granted.
 * @throws {InvalidOptionError} when an entry is neither a tool name nor `{ tool, when? }`.
 * @internal
 */
export function createExemptionTest(parameter: string, exemptions: unknown): ExemptionTest {
  const fix = "Pass an array of tool names or { tool, when(args) } objects, such as ['check_status', { tool: 'browser', when: (args) => args.action === 'scroll_down' }], or [] for none.";
  if (!Array.isArray(exemptions)) throw new InvalidOptionError({ parameter, value: exemptions, fix });
  const whole = new Set<string>();
  const byAction = new Map<string, ((args: Record<string, unknown>) => boolean)[]>();
  for (const entry of exemptions as unknown[]) {
    if (typeof entry === 'string') {
      whole.add(entry);
    } else if (isActionExemption(entry)) {
      if (entry.when === undefined) whole.add(entry.tool);
      else byAction.set(entry.tool, [...(byAction.get(entry.tool) ?? []), entry.when]);
    } else {
      throw new InvalidOptionError({ parameter, value: entry, fix });
    }
  }
  if (byAction.size === 0) return (call) => whole.has(call.name);
  return (call) => {
    if (whole.has(call.name)) return true;
    const predicates = byAction.get(call.name);
    if (predicates === undefined) return false;
    const args = typeof call.args === 'object' && call.args !== null ? (call.args as Record<string, unknown>) : {};
    return predicates.some((when) => {
      try {
        return when(args) === true;
      } catch {
        return false;
      }
    });
  };
}

function isActionExemption(entry: unknown): entry is { tool: string; when?: (args: Record<string, unknown>) => boolean } {
  if (typeof entry !== 'object' || entry === null) return false;
  const { tool, when } = entry as { tool?: unknown; when?: unknown };
  return typeof tool === 'string' && tool !== '' && (when === undefined || typeof when === 'function');
}
