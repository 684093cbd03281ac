/**
 * Values that look like secrets, replaced wherever Panoptes writes text into a span, event or metric attribute,
 * whether or not content capture is on. Patterns are global, case-insensitive where it helps.
 */
export const DEFAULT_SECRET_PATTERNS: readonly RegExp[] = [
  // An Authorization header or field, whatever its scheme: everything after the name up to the end of the value.
  /(["']?(?:proxy-)?authorization["']?\s*[:=]\s*["']?)[^"'\r\n,;}]+/gi,
  // A bearer or basic token anywhere.
  /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  // Named keys, tokens, passwords and secrets: `api_key=...`, `"x-api-key": "..."`, `password: ...`.
  /(["']?[\w-]*(?:api[_-]?key|secret|token|password|passwd)["']?\s*[:=]\s*["']?)[^\s"',;}&]{4,}/gi,
  // Provider key formats: OpenAI/Anthropic (sk-...), AWS access key ids, GitHub, Slack, Google, Stripe, JWTs.
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

export const REDACTED = '[REDACTED]';

/**
 * Replaces what `patterns` match with `[REDACTED]`. A pattern with a first capture group keeps that group (the
 * `Authorization: ` before the value), so the reader still sees what was there.
 */
export function redactSecrets(text: string, patterns: readonly RegExp[] = DEFAULT_SECRET_PATTERNS): string {
  let result = text;
  for (const pattern of patterns) {
    pattern.lastIndex = 0;
    result = result.replace(pattern, (match: string, ...groups: unknown[]) => {
      const kept = typeof groups[0] === 'string' ? groups[0] : '';
      // A scheme word (bearer, basic) is kept as the prefix too.
      return kept && kept.length < match.length ? `${kept}${kept.endsWith(' ') || /[:=\s"']$/.test(kept) ? '' : ' '}${REDACTED}` : REDACTED;
    });
  }
  return result;
}

/** The patterns in force: the defaults plus the user's own, each made global so every occurrence is replaced. */
export function secretPatterns(extra: readonly RegExp[] | undefined): readonly RegExp[] {
  if (!extra || extra.length === 0) return DEFAULT_SECRET_PATTERNS;
  return [...DEFAULT_SECRET_PATTERNS, ...extra.map((pattern) => (pattern.global ? pattern : new RegExp(pattern.source, `${pattern.flags}g`)))];
}
