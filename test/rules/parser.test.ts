import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RulebaseError } from '../../src/errors/index.js';
import { analyzeRulebase, MAX_NESTING_DEPTH, parseGoalText, parseRulebase } from '../../src/rules/index.js';

const errorsOf = (text: string) =>
  analyzeRulebase(text, { source: 'policy.rules' }).diagnostics.filter((diagnostic) => diagnostic.severity === 'error');

describe('parseRulebase: the language', () => {
  it('parses every statement kind of DESIGN.md section 10', () => {
    const rulebase = parseRulebase(
      `
      # comments with hash
      % and with percent
      context booking_of_interest "the booking being discussed"
      data booking_status(B, S) from get_booking(booking_id: B) -> S = $.status ttl 60s
      data booking_flight(B, F, D) from get_booking(booking_id: B) -> F = $.flights[*].number, D = $.flights[*].date ttl 5m.
      askable customer_confirms(B) "Does the customer confirm {B}?"
      fact cabin_rank(business, 3).
      rule refundable(B) :- booking_status(B, "cancelled_by_airline").
      rule late(B) :- booking_flight(B, F, _D), F != "X" , not booking_status(B, cancelled).
      guard issue_refund(booking_id: B) :- B = booking_of_interest, refundable(B), customer_confirms(B).
      guard ping.
      `,
      { source: 'policy.rules' },
    );
    expect([...rulebase.contexts.keys()]).toEqual(['booking_of_interest']);
    expect(rulebase.contexts.get('booking_of_interest')!.description).toBe('the booking being discussed');
    expect(rulebase.data.get('booking_status')).toMatchObject({ tool: 'get_booking', ttlMs: 60_000, params: ['B', 'S'] });
    expect(rulebase.data.get('booking_flight')).toMatchObject({ ttlMs: 300_000 });
    expect(rulebase.dataByTool.get('get_booking')).toHaveLength(2);
    expect(rulebase.askables.get('customer_confirms')!.question).toBe('Does the customer confirm {B}?');
    expect(rulebase.rules.get('cabin_rank')![0]!.body).toEqual([]);
    expect(rulebase.guards.get('issue_refund')).toHaveLength(1);
    expect(rulebase.guards.get('ping')![0]!.params).toEqual([]);
  });

  it('reads bare context names as context variables wherever they are declared, quoted strings never', () => {
    const rulebase = parseRulebase(`
      rule mine(B) :- B = booking_of_interest, B != "booking_of_interest".
      context booking_of_interest
    `);
    const body = rulebase.rules.get('mine')![0]!.body;
    expect(body[0]).toMatchObject({ kind: 'compare', right: { kind: 'context', name: 'booking_of_interest' } });
    expect(body[1]).toMatchObject({ kind: 'compare', right: { kind: 'constant', value: 'booking_of_interest', quoted: true } });
  });

  it('parses terms: numbers, negatives, booleans, null, lists, objects, arithmetic with precedence', () => {
    const rulebase = parseRulebase(`rule t(X) :- X = 1 + 2 * -3, Y = [1, "a", b, true, null], {k: X, "other key": Y} = Z, Z != 4.5.`);
    const body = rulebase.rules.get('t')![0]!.body;
    expect(body[0]).toMatchObject({
      kind: 'compare',
      right: { kind: 'arithmetic', operator: '+', left: { value: 1 }, right: { kind: 'arithmetic', operator: '*', right: { value: -3 } } },
    });
    expect(body[1]).toMatchObject({ right: { kind: 'list', items: [{ value: 1 }, { value: 'a' }, { value: 'b' }, { value: true }, { value: null }] } });
    expect(body[2]).toMatchObject({ left: { kind: 'object', entries: [{ key: 'k' }, { key: 'other key' }] } });
  });

  it('parses membership, negation of membership and object patterns', () => {
    const rulebase = parseRulebase(`rule kept(N, Fs) :- N = "a", {flight_number: N} in Fs, not {flight_number: "b"} in Fs.`);
    expect(rulebase.rules.get('kept')![0]!.body.map((literal) => literal.kind)).toEqual(['compare', 'member', 'not']);
  });

  it('parses goals for queries', () => {
    expect(parseGoalText('refundable(booking_of_interest), S != x.').literals).toHaveLength(2);
    expect(parseGoalText('refundable(').diagnostics[0]).toMatchObject({ line: 1, column: 12 });
  });
});

describe('parseRulebase: syntax errors anywhere, with file, line and column', () => {
  const cases: Array<[string, string, number, number, RegExp]> = [
    ['bad character', 'context a\nrule p :- q @ r.', 2, 13, /unexpected character "@"/],
    ['single quotes', "rule p(X) :- X = 'a'.", 1, 18, /unexpected character/],
    ['unterminated string', 'askable a(X) "Is {X} ok?\nrule p.', 1, 14, /unterminated string/],
    ['missing period at end of rule', 'rule p :- true\nrule q :- true.', 2, 1, /expected '\.'|expected a comparison/],
    ['missing arrow in data', 'data s(B, S) from t(id: B) S = $.x', 1, 28, /expected '->'/],
    ['path without $', 'data s(B, S) from t(id: B) -> S = status', 1, 35, /JSON path/],
    ['bad ttl', 'data s(B, S) from t(id: B) -> S = $.x ttl sixty', 1, 43, /duration/],
    ['variable as predicate name', 'rule P(x) :- true.', 1, 6, /predicate name/],
    ['lowercase data parameter', 'data s(b) from t(id: b) -> b = $.x', 1, 8, /variable/],
    ['askable without question', 'askable ok(X)\nrule p.', 2, 1, /question/],
    ['guard parameter without name', 'guard t(B) :- true.', 1, 10, /':' after parameter name/],
    ['unclosed argument list', 'rule p :- q(a, b.', 1, 17, /',' or '\)'/],
    ['dangling operator', 'rule p(X) :- q(X), X >.', 1, 23, /expected a term/],
    ['not a statement', 'when p then q.', 1, 1, /expected a statement/],
    ['empty body', 'rule p :- .', 1, 11, /expected a term|comparison/],
    ['bad path bracket', 'data s(B, S) from t(id: B) -> S = $.x[abc] ttl 1s', 1, 35, /bad JSON path/],
  ];
  for (const [name, text, line, column, message] of cases) {
    it(name, () => {
      const errors = errorsOf(text);
      expect(errors.length).toBeGreaterThan(0);
      expect(errors[0]).toMatchObject({ source: 'policy.rules', line, column });
      expect(errors[0]!.message).toMatch(message);
    });
  }

  it('reports every error in one run and recovers at the next statement', () => {
    const errors = errorsOf(`
context ok
rule a :- b(.
rule fine :- true.
data x(B) from t(id B) -> B = $.y
guard g(p: X) :- X > .
rule also_fine :- fine.
`);
    expect(errors.map((error) => error.line)).toEqual([3, 5, 6]);
  });

  it('throws one RulebaseError listing all of them', () => {
    try {
      parseRulebase('rule a :- b(.\nrule c :- d(.', { source: 'x.rules' });
      expect.unreachable();
    } catch (error) {
      expect(RulebaseError.isInstance(error)).toBe(true);
      const rulebaseError = error as RulebaseError;
      expect(rulebaseError.code).toBe('INVALID_RULEBASE');
      expect(rulebaseError.diagnostics).toHaveLength(2);
      expect(rulebaseError.message).toContain('x.rules:1:13');
      expect(rulebaseError.message).toContain('x.rules:2:13');
    }
  });

  it('never throws anything but diagnostics, whatever the input', () => {
    const alphabet = fc.constantFrom(...'abcXY_ ()[]{},.:-=<>!+*/"$#%\n19 ruledataguardcontextaskablefromttlnot'.split(''));
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 80 }), (chars) => {
        const result = analyzeRulebase(chars.join(''), { source: 'fuzz' });
        for (const diagnostic of result.diagnostics) {
          if (diagnostic.severity === 'error') {
            expect(diagnostic.line).toBeGreaterThanOrEqual(1);
            expect(diagnostic.column).toBeGreaterThanOrEqual(1);
          }
        }
        expect(result.rulebase !== undefined || result.diagnostics.some((d) => d.severity === 'error')).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('nesting depth (issue 13)', () => {
  const deepest = (text: string) => {
    try {
      parseRulebase(text, { source: 'deep.rules' });
    } catch (error) {
      if (RulebaseError.isInstance(error)) return error;
    }
    throw new Error('expected a RulebaseError');
  };

  it('refuses 10,000 nested parentheses with a positioned error, not a stack overflow', () => {
    const error = deepest(`fact q(1).\nrule p(X) :- X = ${'('.repeat(10_000)}1${')'.repeat(10_000)}.\n`);
    expect(error.code).toBe('INVALID_RULEBASE');
    expect(error.diagnostics).toEqual([expect.objectContaining({ code: 'rules-syntax', line: 2, column: 18 + MAX_NESTING_DEPTH, message: `'(' opens level ${MAX_NESTING_DEPTH + 1} of nesting; the limit is ${MAX_NESTING_DEPTH}` })]);
    expect(error.message).toContain(`deep.rules:2:${18 + MAX_NESTING_DEPTH}`);
    expect(error.diagnostics[0]!.hint).toContain('bind parts to variables');
  });

  it('refuses deep lists, objects, unary minus and not, and long operator chains, which later walks recurse over', () => {
    const at = (text: string) => deepest(text).diagnostics.map((diagnostic) => `${diagnostic.line}:${diagnostic.column} ${diagnostic.message}`);
    expect(at(`rule p(X) :- X = ${'['.repeat(5000)}1${']'.repeat(5000)}.`)).toEqual([`1:${18 + MAX_NESTING_DEPTH} '[' opens level 65 of nesting; the limit is 64`]);
    expect(at(`rule p(X) :- X = ${'{a: '.repeat(5000)}1${'}'.repeat(5000)}.`)).toEqual([`1:${18 + 4 * MAX_NESTING_DEPTH} '{' opens level 65 of nesting; the limit is 64`]);
    expect(at(`rule p(X) :- X = ${'-'.repeat(5000)}1.`)).toEqual([`1:${18 + MAX_NESTING_DEPTH} '-' opens level 65 of nesting; the limit is 64`]);
    expect(at(`fact q(1).\nrule p(X) :- q(X), ${'not '.repeat(5000)}q(X).`)).toEqual([`2:${20 + 4 * MAX_NESTING_DEPTH} 'not' opens level 65 of nesting; the limit is 64`]);
    expect(at(`rule p(X) :- X = 1${' + 1'.repeat(100_000)}.`)).toEqual([`1:${20 + 4 * (MAX_NESTING_DEPTH - 1)} the expression is 65 levels deep at '+'; the limit is 64`]);
  });

  it('accepts nesting up to the limit', () => {
    expect(parseRulebase(`rule p(X) :- X = ${'('.repeat(MAX_NESTING_DEPTH)}1${')'.repeat(MAX_NESTING_DEPTH)}.`).rules.get('p')).toHaveLength(1);
    expect(parseRulebase(`rule p(X) :- X = 1${' + 1'.repeat(MAX_NESTING_DEPTH - 1)}.`).rules.get('p')).toHaveLength(1);
  });

  it('bounds a goal the model writes the same way', () => {
    expect(parseGoalText(`p(${'['.repeat(10_000)}1${']'.repeat(10_000)})`).diagnostics).toEqual([expect.objectContaining({ code: 'rules-syntax', column: 3 + MAX_NESTING_DEPTH })]);
  });
});
