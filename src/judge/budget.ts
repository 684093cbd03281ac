import { InvalidOptionError } from '../errors/index.js';
import { LruMap } from '../embed/lru.js';

/** Limits of judge calls and tokens; a missing limit is no limit. */
export interface JudgeLimits {
  /** Model calls (cache hits are free). */
  calls?: number;
  /** Input and output tokens, as the model reports them. */
  tokens?: number;
  /** US dollars, for calls whose usage is reported and whose model the judge's `prices` list. */
  costUsd?: number;
}

/** Options of {@link createJudgeBudget}. */
export interface JudgeBudgetOptions {
  /** Limits per session (the input's `sessionId`; calls without one count only towards the process). */
  session?: JudgeLimits;
  /** Limits for every judgment this budget counts (share one budget between judges for a process-wide limit). */
  process?: JudgeLimits;
  /** Sessions whose counts are kept; the least recently used is forgotten past it. @default 10000 */
  maxSessions?: number;
}

/** What a budget has spent. */
export interface BudgetUsage {
  calls: number;
  tokens: number;
  costUsd: number;
}

/** Counts judge calls and tokens against per-session and per-process limits. */
export interface JudgeBudget {
  /**
   * Takes one call from the budget, or says which limit is spent (`session calls`, `process tokens`, `session cost`,
   * ...). Tokens and cost are known only after a call, so their limits refuse the calls after the one that crossed it.
   */
  reserve(sessionId: string | undefined): string | undefined;
  /** Adds the tokens a call used, and what it cost in US dollars when known. */
  spend(sessionId: string | undefined, tokens: number, costUsd?: number): void;
  /** The spend of the process, or of one session. */
  usage(sessionId?: string): BudgetUsage;
}

/**
 * A judge budget. Pass the same one to several judges to share a process-wide limit.
 * @throws {InvalidOptionError} for a limit that is not a whole number >= 0.
 * @example
 * const budget = createJudgeBudget({ session: { calls: 20 }, process: { tokens: 2_000_000 } });
 */
export function createJudgeBudget({ session = {}, process: processLimits = {}, maxSessions = 10_000 }: JudgeBudgetOptions = {}): JudgeBudget {
  for (const [scope, limits] of [['session', session], ['process', processLimits]] as const) {
    for (const [name, value] of Object.entries(limits)) {
      if (name === 'costUsd') {
        if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
          throw new InvalidOptionError({ parameter: `budget.${scope}.${name}`, value, fix: 'Pass US dollars as a number >= 0 (e.g. 0.5), or leave it out for no limit.' });
        }
      } else if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
        throw new InvalidOptionError({ parameter: `budget.${scope}.${name}`, value, fix: 'Pass a whole number >= 0, or leave it out for no limit.' });
      }
    }
  }
  const total: BudgetUsage = { calls: 0, tokens: 0, costUsd: 0 };
  const sessions = new LruMap<string, BudgetUsage>(maxSessions);
  const of = (sessionId: string): BudgetUsage => {
    let usage = sessions.get(sessionId);
    if (!usage) sessions.set(sessionId, (usage = { calls: 0, tokens: 0, costUsd: 0 }));
    return usage;
  };
  const spent = (usage: BudgetUsage, limits: JudgeLimits, scope: string): string | undefined => {
    if (limits.calls !== undefined && usage.calls >= limits.calls) return `${scope} calls`;
    if (limits.tokens !== undefined && usage.tokens >= limits.tokens) return `${scope} tokens`;
    if (limits.costUsd !== undefined && usage.costUsd >= limits.costUsd) return `${scope} cost (US$${limits.costUsd})`;
    return undefined;
  };
  return {
    reserve(sessionId) {
      const perSession = sessionId === undefined ? undefined : of(sessionId);
      const over = spent(total, processLimits, 'process') ?? (perSession ? spent(perSession, session, 'session') : undefined);
      if (over) return over;
      total.calls++;
      if (perSession) perSession.calls++;
      return undefined;
    },
    spend(sessionId, tokens, costUsd = 0) {
      total.tokens += tokens;
      total.costUsd += costUsd;
      if (sessionId !== undefined) {
        const usage = of(sessionId);
        usage.tokens += tokens;
        usage.costUsd += costUsd;
      }
    },
    usage: (sessionId) => ({ ...(sessionId === undefined ? total : (sessions.get(sessionId) ?? { calls: 0, tokens: 0, costUsd: 0 })) }),
  };
}
