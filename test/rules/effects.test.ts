/**
 * The rule language additions of issue 14: confirmations bound to a call (`askable ... for tool`), writes that
 * invalidate data (`write ... invalidates ...`), conditions explained in the author's words, and the parameters
 * `given` and `strict` name.
 */
import { describe, expect, it } from 'vitest';
import { analyzeRulebase, parseRulebase, type ParseRulebaseOptions } from '../../src/rules/index.js';

const TOOLS: ParseRulebaseOptions['tools'] = [
  { name: 'get_booking', parameters: { properties: { booking_id: {} } } },
  { name: 'change_booking', parameters: { properties: { booking_id: {}, seats: {} } } },
  { name: 'cancel_booking', parameters: { properties: { booking_id: {} } } },
];
const BASE = `
context current_booking
data seats(B, N) from get_booking(booking_id: B) -> N = $.seats ttl 60s
`;
const errors = (text: string) =>
  analyzeRulebase(BASE + text, { source: 'p.rules', tools: TOOLS })
    .diagnostics.filter((diagnostic) => diagnostic.severity === 'error')
    .map((diagnostic) => `${diagnostic.code}@${diagnostic.line! - 3}: ${diagnostic.message}${diagnostic.hint ? ` (${diagnostic.hint})` : ''}`);

describe('askable ... for tool: a confirmation of one call', () => {
  it('parses the tool and, optionally, the arguments it covers', () => {
    const rulebase = parseRulebase(
      `${BASE}askable ok_all(B) for change_booking "Change {B}: {call}?"\naskable ok_seats(B) for change_booking(seats) "Seats of {B}?"\nguard change_booking(booking_id: B, seats: _S) :- ok_all(B), ok_seats(B).`,
      { tools: TOOLS },
    );
    expect(rulebase.askables.get('ok_all')!.confirms).toMatchObject({ tool: 'change_booking' });
    expect(rulebase.askables.get('ok_seats')!.confirms).toMatchObject({ tool: 'change_booking', params: ['seats'] });
    expect(rulebase.confirmationsByTool.get('change_booking')!.map((askable) => askable.predicate)).toEqual(['ok_all', 'ok_seats']);
  });

  it('refuses, at load, a use with no call to bind to, under not, or in the guard of another tool', () => {
    expect(errors('askable ok(B) for change_booking "?"\nrule fine(B) :- ok(B).\nguard cancel_booking(booking_id: B) :- fine(B), not ok(B).\nguard change_booking(booking_id: B) :- ok(B).\nguard get_booking(booking_id: B) :- ok(B).')).toEqual([
      "confirmation-outside-guard@2: ok confirms a call of change_booking; a rule has no call to bind it to (use ok directly in a guard of change_booking, or declare a separate askable without 'for')",
      "confirmation-negated@3: ok confirms a call of change_booking and cannot be used under 'not' (use ok directly in a guard of change_booking, or declare a separate askable without 'for')",
      "confirmation-wrong-tool@5: ok confirms a call of change_booking, not of get_booking (use ok directly in a guard of change_booking, or declare a separate askable without 'for')",
    ]);
  });

  it('refuses an unknown tool or parameter, and {call} in a question that confirms no call', () => {
    expect(errors('askable a(B) for change_bookin "?"\naskable b(B) for change_booking(seat) "?"\naskable c(B) "Do {call}?"')).toEqual([
      "unknown-tool@1: tool 'change_bookin' is not one of the agent's tools (did you mean 'change_booking'?)",
      "unknown-tool-parameter@2: tool 'change_booking' has no parameter 'seat' (did you mean 'seats'?)",
      'unknown-placeholder@3: the question uses {call}, which is not a parameter (parameters: B)',
    ]);
  });
});

describe('write ... invalidates ...: what a write changes', () => {
  it('parses the write, its parameters and the data calls it makes stale', () => {
    const rulebase = parseRulebase(`${BASE}write change_booking(booking_id: B) invalidates get_booking(booking_id: B), get_booking(booking_id: current_booking).`, { tools: TOOLS });
    const [write] = rulebase.writes.get('change_booking')!;
    expect(write!.invalidates.map((target) => [target.tool, target.args.map((arg) => arg.value.kind)])).toEqual([
      ['get_booking', ['var']],
      ['get_booking', ['context']],
    ]);
  });

  it('refuses, at load, a target no data declaration reads, a variable the write does not bind, unknown tools and parameters', () => {
    expect(errors('write change_booking(booking_id: B) invalidates cancel_booking(booking_id: B).\nwrite cancel_booking(booking_id: B) invalidates get_booking(booking_id: X).\nwrite change_booking(bookin_id: B) invalidates get_booking(booking_id: B).\nwrite chnage_booking(booking_id: B) invalidates get_booking(booking_id: B).')).toEqual([
      "write-target-not-data@1: 'cancel_booking' is not read by any data declaration, so no fact comes from it to invalidate (data tools: get_booking)",
      'unbound-variable@2: variable X is not a parameter of cancel_booking (name it in cancel_booking(param: X), or write a context name or a constant)',
      "unknown-tool-parameter@3: tool 'change_booking' has no parameter 'bookin_id' (did you mean 'booking_id'?)",
      "unknown-tool@4: tool 'chnage_booking' is not one of the agent's tools (did you mean 'change_booking'?)",
    ]);
  });

  it('points at a missing keyword or period with line and column', () => {
    const { diagnostics } = analyzeRulebase(`${BASE}write change_booking(booking_id: B) get_booking(booking_id: B).`, { source: 'p.rules' });
    expect(diagnostics[0]).toMatchObject({ code: 'rules-syntax', line: 4, column: 37, message: "expected 'invalidates', found 'get_booking'" });
  });
});

describe('explained conditions', () => {
  it('keeps the string after a condition as its explanation, under not too', () => {
    const rulebase = parseRulebase(`${BASE}guard change_booking(booking_id: B, seats: S) :- seats(B, N) "booking {B} is unknown", S >= N "seats can only be added: {B} has {N}", not seats(B, 0) "{B} is empty".`, { tools: TOOLS });
    const body = rulebase.guards.get('change_booking')![0]!.body;
    expect(body.map((literal) => literal.explain)).toEqual(['booking {B} is unknown', 'seats can only be added: {B} has {N}', '{B} is empty']);
  });
});

describe.each([
  ['given', 'change_booking', 'seats', 'parameters the user gives'],
  ['strict', 'get_booking', 'booking_id', 'arguments strict mode checks on a tool it would skip'],
] as const)('%s tool(param, ...)', (keyword, tool, parameter, what) => {
  it(`indexes ${what} by tool, and refuses an unknown tool or parameter at load with file, line, column and a fix`, () => {
    expect([...parseRulebase(`${BASE}${keyword} ${tool}(${parameter}).`, { tools: TOOLS })[keyword].get(tool)!]).toEqual([parameter]);
    const typo = parameter.slice(0, -1);
    expect(errors(`${keyword} ${tool}(${typo}).\n${keyword} ${tool}x(${parameter}).`)).toEqual([
      `unknown-tool-parameter@1: tool '${tool}' has no parameter '${typo}' (did you mean '${parameter}'?)`,
      `unknown-tool@2: tool '${tool}x' is not one of the agent's tools (did you mean '${tool}'?)`,
    ]);
    const { diagnostics } = analyzeRulebase(`${BASE}${keyword} ${tool}(${typo}).`, { source: 'p.rules', tools: TOOLS });
    expect(diagnostics[0]).toMatchObject({ source: 'p.rules', line: 4, column: 1, path: `${keyword} ${tool}` });
  });
});

describe('strict tool(param, ...): syntax', () => {
  it('points at a missing parameter list or period', () => {
    expect(analyzeRulebase(`${BASE}strict get_booking.`, { source: 'p.rules' }).diagnostics[0]).toMatchObject({ code: 'rules-syntax', line: 4, column: 19, message: "expected '(', found '.'" });
    expect(analyzeRulebase(`${BASE}strict get_booking(booking_id)`, { source: 'p.rules' }).diagnostics[0]).toMatchObject({ code: 'rules-syntax', message: "expected '.' at the end of the strict declaration, found the end of the file" });
  });
});
