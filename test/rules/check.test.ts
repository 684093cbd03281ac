import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError, RulebaseError } from '../../src/errors/index.js';
import { analyzeRulebase, checkRulebaseFile, loadRulebase, parseRulebase, type ParseRulebaseOptions } from '../../src/rules/index.js';

const diagnosticsOf = (text: string, tools?: ParseRulebaseOptions['tools']) =>
  analyzeRulebase(text, { source: 'p.rules', ...(tools ? { tools } : {}) }).diagnostics;
const codes = (text: string, tools?: ParseRulebaseOptions['tools']) =>
  diagnosticsOf(text, tools).filter((d) => d.severity === 'error').map((d) => `${d.code}@${d.line}:${d.column}`);

describe('load-time checks', () => {
  it('undefined predicates, with a suggestion', () => {
    const diagnostics = diagnosticsOf('rule refundable(B) :- B = 1.\nguard g(id: B) :- refundabel(B).');
    expect(diagnostics[0]).toMatchObject({ code: 'undefined-predicate', line: 2, column: 19, hint: "did you mean 'refundable'?" });
  });

  it('undefined predicates under not', () => {
    expect(codes('rule p(X) :- X = 1, not q(X).')).toEqual(['undefined-predicate@1:25']);
  });

  it('arity mismatches between definitions and calls', () => {
    expect(codes('rule p(X) :- X = 1.\nrule p(X, Y) :- X = Y, Y = 1.\nrule q :- p(1, 2, 3).')).toEqual(['arity-mismatch@2:1', 'arity-mismatch@3:11']);
  });

  it('a predicate defined twice in different ways', () => {
    expect(codes('data p(X) from t(id: X) -> X = $.x\naskable p(X) "?"\n')).toEqual(['duplicate-definition@2:1']);
  });

  it('built-ins cannot be redefined', () => {
    expect(codes('rule length(X, Y) :- X = Y.')).toEqual(['builtin-redefined@1:1']);
  });

  it('unbound variables in rule heads', () => {
    expect(codes('fact p(X).\nrule q(X, Y) :- r(X).\nfact r(1).')).toEqual(['unbound-head-variable@1:8', 'unbound-head-variable@2:11']);
  });

  it('data parameters that are neither inputs nor outputs, and outputs that are not parameters', () => {
    expect(codes('data p(X, Y) from t(id: X) -> Z = $.z')).toEqual(['unbound-head-variable@1:1', 'unbound-variable@1:35']);
  });

  it('unsafe negation: a variable first seen under not', () => {
    const diagnostics = diagnosticsOf('fact q(1).\nrule p(X) :- q(X), not q(Y).');
    expect(diagnostics.find((d) => d.code === 'unsafe-negation')).toMatchObject({ line: 2, column: 26 });
  });

  it('unsafe comparisons, arithmetic and membership', () => {
    expect(codes('fact q(1).\nrule p(X) :- q(X), Y > 1, Z = W + 1, A in L.')).toEqual([
      'unsafe-comparison@2:20',
      'unsafe-arithmetic@2:31',
      'unsafe-membership@2:43',
    ]);
  });

  it('built-ins that read an unbound input', () => {
    expect(codes('fact q(1).\nrule p(N) :- q(N), length(L, N).')).toEqual(['unsafe-builtin@2:27']);
  });

  it('guards for tools that do not exist, when the tool list is given', () => {
    const diagnostics = diagnosticsOf('guard cancel_reservaton(id: X) :- X = 1.', ['cancel_reservation']);
    expect(diagnostics[0]).toMatchObject({ code: 'unknown-tool', line: 1, column: 1, hint: "did you mean 'cancel_reservation'?" });
    expect(codes('guard cancel_reservaton(id: X) :- X = 1.')).toEqual([]);
  });

  it('data declarations for tools that do not exist', () => {
    expect(codes('data p(X, Y) from nope(id: X) -> Y = $.y', ['get'])).toEqual(['unknown-tool@1:1']);
  });

  it("guard parameters the tool's schema does not have", () => {
    const tools = [{ name: 'cancel', parameters: { properties: { reservation_id: {} } } }];
    expect(diagnosticsOf('guard cancel(reservation: R) :- R = 1.', tools)[0]).toMatchObject({
      code: 'unknown-tool-parameter',
      hint: "did you mean 'reservation_id'?",
    });
  });

  it('askable questions that name a non-parameter', () => {
    expect(codes('askable ok(B) "Confirm {Booking}?"')).toEqual(['unknown-placeholder@1:1']);
  });

  it('duplicate contexts', () => {
    expect(codes('context a\ncontext a')).toEqual(['duplicate-context@2:1']);
  });

  it('singleton variables are warnings, not errors', () => {
    const result = analyzeRulebase('fact q(1).\nrule p :- q(Typo).', { source: 'p.rules' });
    expect(result.rulebase).toBeDefined();
    expect(result.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', code: 'singleton-variable', line: 2, column: 13 })]);
    expect(analyzeRulebase('fact q(1).\nrule p :- q(_Ignored).').diagnostics).toEqual([]);
  });

  it('guard parameters may be used once', () => {
    expect(analyzeRulebase('guard think(thought: T).').diagnostics).toEqual([]);
  });
});

describe('loadRulebase and checkRulebaseFile', () => {
  it('load a file, naming it in diagnostics', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rules-'));
    const good = join(dir, 'good.rules');
    const bad = join(dir, 'bad.rules');
    await writeFile(good, 'fact ok.\nguard t :- ok.\n');
    await writeFile(bad, 'fact ok.\nguard t :- okay.\n');
    expect((await loadRulebase(good)).guards.has('t')).toBe(true);
    await expect(loadRulebase(bad)).rejects.toSatisfy((error) => RulebaseError.isInstance(error) && error.message.includes(`${bad}:2:12`));
    expect(await checkRulebaseFile(good)).toEqual([]);
    expect(await checkRulebaseFile(bad)).toEqual([expect.objectContaining({ source: bad, line: 2, column: 12, code: 'undefined-predicate' })]);
  });

  it('refuse a file over maxBytes from its size, naming the file, the size, the limit and the fix (issue 13)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rules-'));
    const big = join(dir, 'big.rules');
    await writeFile(big, 'fact ok.\n'.repeat(200)); // 1,800 bytes
    const refused = (error: unknown) =>
      RulebaseError.isInstance(error) &&
      error.diagnostics[0]?.code === 'input-too-large' &&
      error.message.includes(big) &&
      error.message.includes('the rulebase is 1,800 bytes; the limit is 1,000 bytes') &&
      error.message.includes('`maxBytes`');
    await expect(loadRulebase(big, { maxBytes: 1000 })).rejects.toSatisfy(refused);
    expect(await checkRulebaseFile(big, { maxBytes: 1000 })).toEqual([expect.objectContaining({ code: 'input-too-large', source: big })]);
    expect((await loadRulebase(big, { maxBytes: 1800 })).rules.get('ok')).toHaveLength(200);
    expect(() => parseRulebase('fact ok.\n'.repeat(200), { maxBytes: 1000 })).toThrow('the rulebase is 1,800 bytes');
    await expect(loadRulebase(big, { maxBytes: 0 })).rejects.toSatisfy((error) => InvalidOptionError.isInstance(error));
  });

  it('report an unreadable file as one diagnostic, and loading throws', async () => {
    expect(await checkRulebaseFile('/nonexistent/x.rules')).toEqual([
      { severity: 'error', code: 'file-not-found', message: 'no such file', path: '', source: '/nonexistent/x.rules', hint: 'check the path, or run `panoptes init` to write a starter rulebase' },
    ]);
    await expect(loadRulebase('/nonexistent/x.rules')).rejects.toSatisfy((error) => RulebaseError.isInstance(error));
  });
});

describe('size (issue 13)', () => {
  it('indexes 100,000 facts of one predicate in file order, each kept once', () => {
    // The list of a predicate's rules was copied for each new fact: 32,000 facts took 10 s, 500,000 never finished.
    const count = 100_000;
    const text = Array.from({ length: count }, (_, index) => `fact f(item_${index}, ${index}).`).join('\n');
    const rules = parseRulebase(text, { maxBytes: 4 * 1024 * 1024 }).rules.get('f')!;
    expect(rules).toHaveLength(count);
    expect(rules[count - 1]!.args).toEqual([expect.objectContaining({ value: `item_${count - 1}` }), expect.objectContaining({ value: count - 1 })]);
  });
});
