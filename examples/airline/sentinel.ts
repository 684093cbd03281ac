/**
 * The airline example's guard setup: the rulebase, the tools over the database, a fact store seeded with the
 * logged-in customer, and a sentinel at the airline world's time.
 */
import { fileURLToPath } from 'node:url';
import { createFactStore, createSentinel, loadRulebase, noteWorkflowStates, type Clock, type SentinelOptions } from 'panoptes';
import { AIRLINE_NOW, AIRLINE_TOOL_SCHEMAS, createAirlineTools, loadAirlineDb } from './tools.js';

/** Path of the airline rulebase. */
export const AIRLINE_RULES_PATH = fileURLToPath(new URL('./policy.rules', import.meta.url));

/**
 * Builds a fresh airline world: database copy, tools, fact store (seeded with `userId` when given) and sentinel.
 * @example const { sentinel, tools } = await createAirlineSession({ userId: 'emma_smith_9363' });
 */
export async function createAirlineSession({
  userId,
  clock = { now: () => AIRLINE_NOW },
  said = [],
  ...options
}: {
  userId?: string;
  clock?: Clock;
  /**
   * Workflow states already reached, for a host without a workflow monitor (an MCP server sees no words): the rules'
   * duties (`requires said(offered_insurance) before book_reservation`) read them. With a monitor, leave it empty:
   * `connectWorkflowStates` records what the agent really said.
   */
  said?: readonly string[];
} & Partial<SentinelOptions> = {}) {
  const db = loadAirlineDb();
  const tools = createAirlineTools(db);
  const rulebase = await loadRulebase(AIRLINE_RULES_PATH, { tools: AIRLINE_TOOL_SCHEMAS as never });
  const facts = createFactStore({ clock, seed: { context: userId ? { current_user: userId } : {} } });
  noteWorkflowStates(facts, said);
  const sentinel = createSentinel({ rulebase, facts, tools, clock, ...options });
  return { db, tools, rulebase, facts, sentinel };
}
