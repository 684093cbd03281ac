import type { Diagnostic } from '../diagnostics/index.js';
import type {
  AskableDeclaration,
  ComparisonOperator,
  DataOutput,
  Declaration,
  LiteralNode,
  Position,
  TermNode,
  WriteDeclaration,
} from './ast.js';
import { MAX_NESTING_DEPTH } from '../limits/index.js';
import { tokenize, type Token } from './lexer.js';

/** Words that start a statement. A statement keyword first on its line is where error recovery resumes. */
export const STATEMENT_KEYWORDS = ['context', 'data', 'askable', 'rule', 'fact', 'guard', 'write', 'given', 'strict', 'source', 'sink', 'requires'] as const;

const COMPARISONS: readonly string[] = ['=', '!=', '<', '<=', '>', '>='];

class SyntaxError extends Error {
  constructor(
    readonly pos: Position,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/**
 * Parses rulebase text into declarations. Syntax errors do not stop the parse: each is reported with its line and
 * column and parsing resumes at the next statement, so an author sees every mistake in one run.
 */
export function parseDeclarations(text: string, source: string): { declarations: Declaration[]; diagnostics: Diagnostic[] } {
  const { tokens, diagnostics } = tokenize(text, source);
  const parser = new Parser(tokens);
  const declarations: Declaration[] = [];
  while (!parser.atEnd()) {
    try {
      declarations.push(parser.statement());
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      diagnostics.push({
        severity: 'error',
        code: 'rules-syntax',
        message: error.message,
        path: '',
        source,
        line: error.pos.line,
        column: error.pos.column,
        ...(error.hint ? { hint: error.hint } : {}),
      });
      parser.recover();
    }
  }
  return { declarations, diagnostics };
}

/**
 * Parses one goal as the model or a developer writes it for `sentinel.query`: `refundable(booking_of_interest)`,
 * `booking_status(B, S), S != cancelled`. Throws a syntax error (with column) for anything else.
 */
export function parseGoalText(text: string, source = '<goal>'): { literals: LiteralNode[]; diagnostics: Diagnostic[] } {
  const { tokens, diagnostics } = tokenize(text, source);
  if (diagnostics.length > 0) return { literals: [], diagnostics };
  const parser = new Parser(tokens);
  try {
    const literals = parser.body();
    parser.optional('.');
    if (!parser.atEnd()) parser.fail('expected the end of the goal');
    return { literals, diagnostics };
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return {
      literals: [],
      diagnostics: [{ severity: 'error', code: 'rules-syntax', message: error.message, path: '', source, line: error.pos.line, column: error.pos.column }],
    };
  }
}

class Parser {
  private index = 0;
  private statementStart = 0;
  /** Open parentheses, lists, objects, unary minuses and `not`s around the current token: the parser's recursion. */
  private depth = 0;
  /** Height of each term built: a chain `1 + 1 + ...` nests no parentheses but is as deep a tree for later walks. */
  private readonly heights = new WeakMap<TermNode, number>();

  constructor(private readonly tokens: Token[]) {}

  atEnd(): boolean {
    return this.peek().kind === 'end';
  }

  statement(): Declaration {
    this.statementStart = this.index;
    const keyword = this.peek();
    if (keyword.kind !== 'identifier' || !(STATEMENT_KEYWORDS as readonly string[]).includes(keyword.text)) {
      this.fail(`expected a statement (${STATEMENT_KEYWORDS.join(', ')})`);
    }
    this.index++;
    switch (keyword.text) {
      case 'context':
        return this.contextDeclaration(keyword.pos);
      case 'data':
        return this.dataDeclaration(keyword.pos);
      case 'askable':
        return this.askableDeclaration(keyword.pos);
      case 'guard':
        return this.guardDeclaration(keyword.pos);
      case 'write':
        return this.writeDeclaration(keyword.pos);
      case 'source':
        return this.sourceDeclaration(keyword.pos);
      case 'sink':
        return this.sinkDeclaration(keyword.pos);
      case 'requires':
        return this.requiresDeclaration(keyword.pos);
      case 'given':
      case 'strict': {
        const tool = this.expectIdentifier('a tool name').text;
        const params = this.nameList();
        this.expect('.', `expected '.' at the end of the ${keyword.text} declaration`);
        return { kind: keyword.text, tool, params, pos: keyword.pos };
      }
      default:
        return this.ruleDeclaration(keyword.pos, keyword.text === 'fact');
    }
  }

  /**
   * Skips to just after the next `.` or to the next statement keyword that begins a line, whichever comes first, but
   * always past the start of the failed statement, so a bad token cannot stall the loop.
   */
  recover(): void {
    if (this.index <= this.statementStart) this.index = this.statementStart + 1;
    const previous = this.tokens[this.index - 1];
    if (previous?.kind === 'punctuation' && previous.text === '.' && this.index - 1 > this.statementStart) return;
    let previousLine = previous?.pos.line ?? -1;
    while (!this.atEnd()) {
      const token = this.peek();
      const startsLine = token.pos.line !== previousLine;
      if (startsLine && token.kind === 'identifier' && (STATEMENT_KEYWORDS as readonly string[]).includes(token.text)) return;
      previousLine = token.pos.line;
      this.index++;
      if (token.kind === 'punctuation' && token.text === '.') return;
    }
  }

  private contextDeclaration(pos: Position): Declaration {
    const name = this.expectIdentifier('a context variable name');
    const description = this.peek().kind === 'string' ? this.next().text : undefined;
    this.endDeclaration('context');
    return { kind: 'context', name: name.text, ...(description !== undefined ? { description } : {}), pos };
  }

  private dataDeclaration(pos: Position): Declaration {
    const predicate = this.expectIdentifier('a predicate name').text;
    const params = this.variableList();
    this.expectKeyword('from');
    const tool = this.expectIdentifier('a tool name').text;
    const toolArgs = this.namedArguments();
    this.expect('->', "expected '->' and the facts' JSON paths, e.g. -> S = $.status");
    const outputs: DataOutput[] = [];
    do {
      const variable = this.expectVariable();
      this.expect('=');
      const path = this.peek();
      if (path.kind !== 'path') this.fail('expected a JSON path starting with $', 'e.g. $.status or $.flights[*].date');
      this.index++;
      outputs.push({ variable: variable.text, path: path.text, pos: path.pos, ...this.outputDefault() });
    } while (this.optional(','));
    let ttlMs: number | undefined;
    if (this.optionalKeyword('ttl')) {
      const duration = this.peek();
      if (duration.kind !== 'duration') this.fail('expected a duration after ttl', 'e.g. 60s, 5m, 1h, 500ms');
      this.index++;
      ttlMs = duration.number!;
    }
    this.endDeclaration('data');
    return { kind: 'data', predicate, params, tool, toolArgs, outputs, ...(ttlMs !== undefined ? { ttlMs } : {}), pos };
  }

  /** `requires said(offered_insurance) before book_reservation.`: a condition every guard of the tool also needs. */
  private requiresDeclaration(pos: Position): Declaration {
    const goal = this.explained();
    this.expectKeyword('before');
    const tool = this.expectIdentifier('the tool that needs it').text;
    this.expect('.', "expected '.' at the end of the requires declaration");
    return { kind: 'requires', goal, tool, pos };
  }

  /** `default value` after a JSON path: what the fact holds when the record has no such field. */
  private outputDefault(): { default?: string | number | boolean | null } {
    if (!this.optionalKeyword('default')) return {};
    const value = this.term();
    if (value.kind !== 'constant') this.fail('expected a constant after default', 'e.g. default active, default 0, default "none"');
    return { default: (value as { value: string | number | boolean | null }).value };
  }

  private askableDeclaration(pos: Position): Declaration {
    const predicate = this.expectIdentifier('a predicate name').text;
    const params = this.peekIs('(') ? this.variableList() : [];
    let confirms: AskableDeclaration['confirms'];
    const forToken = this.peek();
    if (this.optionalKeyword('for')) {
      const tool = this.expectIdentifier('the tool whose call this confirms');
      confirms = { tool: tool.text, pos: forToken.pos, ...(this.peekIs('(') ? { params: this.nameList() } : {}) };
    }
    const question = this.peek();
    if (question.kind !== 'string') this.fail('expected the question to ask, in double quotes', 'e.g. "Does the customer confirm {B}?"');
    this.index++;
    this.endDeclaration('askable');
    return { kind: 'askable', predicate, params, question: question.text, ...(confirms ? { confirms } : {}), pos };
  }

  private writeDeclaration(pos: Position): Declaration {
    const tool = this.expectIdentifier('a tool name').text;
    const params = this.peekIs('(') ? this.namedArguments() : [];
    this.expectKeyword('invalidates');
    const invalidates: WriteDeclaration['invalidates'] = [];
    do {
      const target = this.expectIdentifier('the data tool whose results this write changes');
      invalidates.push({ tool: target.text, args: this.peekIs('(') ? this.namedArguments() : [], pos: target.pos });
    } while (this.optional(','));
    this.expect('.', "expected ',' and another data tool, or '.' at the end of the write declaration");
    return { kind: 'write', tool, params, invalidates, pos };
  }

  /** `source tool[.key...] trusted|untrusted`; `*` for every tool not declared. */
  private sourceDeclaration(pos: Position): Declaration {
    const tool = this.optional('*') ? '*' : this.expectIdentifier("a tool name, or '*' for every tool").text;
    const path: string[] = [];
    while (this.peekIs('.') && this.tokens[this.index + 1]?.kind === 'identifier') {
      this.index++;
      path.push(this.next().text);
    }
    // `source read_file.untrusted` reads as a path; the last key is the trust word when none follows.
    const levels = ['trusted', 'untrusted', 'directory'];
    let trust = this.peek().kind === 'identifier' && levels.includes(this.peek().text) ? this.next().text : undefined;
    if (trust === undefined && levels.includes(path.at(-1) ?? '')) trust = path.pop();
    if (trust === undefined) this.fail("expected 'trusted', 'untrusted' or 'directory'", 'e.g. source read_file untrusted, or source get_transactions.subject untrusted');
    this.endDeclaration('source');
    return { kind: 'source', tool, path, trust: trust as 'trusted' | 'untrusted' | 'directory', pos };
  }

  /** `sink tool(param, ...) kind`. */
  private sinkDeclaration(pos: Position): Declaration {
    const tool = this.expectIdentifier('a tool name').text;
    const params = this.nameList();
    if (params.length === 0) this.fail('a sink names at least one parameter', 'e.g. sink send_money(recipient) payment');
    const sinkKind = this.expectIdentifier('the kind of sink (recipient, payment, egress, destructive, ...)').text;
    this.endDeclaration('sink');
    return { kind: 'sink', tool, params, sinkKind, pos };
  }

  /** `(name, name, ...)`: parameter names of a tool. */
  private nameList(): string[] {
    this.expect('(');
    const names: string[] = [];
    if (this.optional(')')) return names;
    do names.push(this.expectIdentifier('a parameter name').text);
    while (this.optional(','));
    this.expect(')', "expected ',' or ')' in the parameter list");
    return names;
  }

  private ruleDeclaration(pos: Position, isFact: boolean): Declaration {
    const predicate = this.expectIdentifier('a predicate name').text;
    const args = this.peekIs('(') ? this.termList() : [];
    let body: LiteralNode[] = [];
    if (!isFact && this.optional(':-')) body = this.body();
    this.expect('.', isFact ? "expected '.' at the end of the fact" : "expected ':-' and a body, or '.' at the end of the rule");
    return { kind: 'rule', predicate, args, body, pos };
  }

  private guardDeclaration(pos: Position): Declaration {
    const tool = this.expectIdentifier('a tool name').text;
    const params = this.peekIs('(') ? this.namedArguments() : [];
    let body: LiteralNode[] = [];
    if (this.optional(':-')) body = this.body();
    this.expect('.', "expected ':-' and the guard's conditions, or '.' at the end of the guard");
    return { kind: 'guard', tool, params, body, pos };
  }

  body(): LiteralNode[] {
    const literals = [this.explained()];
    while (this.optional(',')) literals.push(this.explained());
    return literals;
  }

  /** A condition, and the author's words for it when a string follows. */
  private explained(): LiteralNode {
    const literal = this.literal();
    const next = this.peek();
    if (next.kind !== 'string') return literal;
    this.index++;
    return { ...literal, explain: next.text };
  }

  private literal(): LiteralNode {
    const token = this.peek();
    if (token.kind === 'identifier' && token.text === 'not') {
      this.index++;
      return { kind: 'not', goal: this.nested(token, () => this.literal()), pos: token.pos };
    }
    if (token.kind === 'identifier' && !['true', 'false', 'null'].includes(token.text)) {
      const after = this.tokens[this.index + 1]!;
      const isTermStart = after.kind === 'punctuation' && [...COMPARISONS, '+', '-', '*', '/'].includes(after.text);
      const isMembership = after.kind === 'identifier' && after.text === 'in';
      if (!isTermStart && !isMembership) {
        this.index++;
        const args = this.peekIs('(') ? this.termList() : [];
        return { kind: 'call', predicate: token.text, args, pos: token.pos };
      }
    }
    if (token.kind === 'identifier' && (token.text === 'true' || token.text === 'false')) {
      const after = this.tokens[this.index + 1]!;
      if (after.kind === 'punctuation' && (after.text === ',' || after.text === '.')) {
        this.index++;
        return { kind: 'call', predicate: token.text, args: [], pos: token.pos };
      }
    }
    const left = this.term();
    const operator = this.peek();
    if (operator.kind === 'punctuation' && COMPARISONS.includes(operator.text)) {
      this.index++;
      return { kind: 'compare', operator: operator.text as ComparisonOperator, left, right: this.term(), pos: operator.pos };
    }
    if (operator.kind === 'identifier' && operator.text === 'in') {
      this.index++;
      return { kind: 'member', element: left, list: this.term(), pos: operator.pos };
    }
    return this.fail('expected a comparison (=, !=, <, <=, >, >=) or `in` after the term', 'a condition is pred(...), X op Y, X in List or not ...');
  }

  private term(): TermNode {
    let left = this.product();
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'punctuation' || (token.text !== '+' && token.text !== '-')) return left;
      this.index++;
      left = this.built(token, { kind: 'arithmetic', operator: token.text, left, right: this.product(), pos: token.pos });
    }
  }

  private product(): TermNode {
    let left = this.unary();
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'punctuation' || (token.text !== '*' && token.text !== '/')) return left;
      this.index++;
      left = this.built(token, { kind: 'arithmetic', operator: token.text, left, right: this.unary(), pos: token.pos });
    }
  }

  private unary(): TermNode {
    const token = this.peek();
    if (token.kind === 'punctuation' && token.text === '-') {
      this.index++;
      const operand = this.nested(token, () => this.unary());
      if (operand.kind === 'constant' && typeof operand.value === 'number') return { ...operand, value: -operand.value, pos: token.pos };
      return this.built(token, { kind: 'arithmetic', operator: '-', left: { kind: 'constant', value: 0, pos: token.pos }, right: operand, pos: token.pos });
    }
    return this.primary();
  }

  private primary(): TermNode {
    const token = this.next();
    switch (token.kind) {
      case 'number':
        return { kind: 'constant', value: token.number!, pos: token.pos };
      case 'string':
        return { kind: 'constant', value: token.text, pos: token.pos, quoted: true };
      case 'variable':
        return { kind: 'var', name: token.text, pos: token.pos };
      case 'identifier':
        if (token.text === 'true' || token.text === 'false') return { kind: 'constant', value: token.text === 'true', pos: token.pos };
        if (token.text === 'null') return { kind: 'constant', value: null, pos: token.pos };
        if (token.text === 'not' || token.text === 'in') this.failAt(token, `'${token.text}' cannot be used as a value`);
        return { kind: 'constant', value: token.text, pos: token.pos };
      case 'punctuation':
        if (token.text === '[') return this.nested(token, () => this.listTail(token));
        if (token.text === '{') return this.nested(token, () => this.objectTail(token));
        if (token.text === '(') {
          return this.nested(token, () => {
            const inner = this.term();
            this.expect(')');
            return inner;
          });
        }
        break;
      default:
        break;
    }
    return this.failAt(token, `expected a term, found ${describe(token)}`);
  }

  private listTail(open: Token): TermNode {
    const items: TermNode[] = [];
    if (!this.optional(']')) {
      do items.push(this.term());
      while (this.optional(','));
      this.expect(']');
    }
    return this.built(open, { kind: 'list', items, pos: open.pos });
  }

  private objectTail(open: Token): TermNode {
    const entries: Array<{ key: string; value: TermNode }> = [];
    if (!this.optional('}')) {
      do {
        const key = this.next();
        if (key.kind !== 'identifier' && key.kind !== 'string') this.failAt(key, `expected a key, found ${describe(key)}`);
        this.expect(':');
        entries.push({ key: key.text, value: this.term() });
      } while (this.optional(','));
      this.expect('}');
    }
    return this.built(open, { kind: 'object', entries, pos: open.pos });
  }

  /**
   * Parses what `token` opens one level deeper. Refusing past `MAX_NESTING_DEPTH` gives a positioned error where
   * 10,000 open parentheses used to overflow the stack.
   */
  private nested<T>(token: Token, parse: () => T): T {
    if (this.depth >= MAX_NESTING_DEPTH) this.failAt(token, `${describe(token)} opens level ${MAX_NESTING_DEPTH + 1} of nesting; the limit is ${MAX_NESTING_DEPTH}`, NESTING_HINT);
    this.depth++;
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  /** Records a composite term's height (one more than its tallest part), refusing a tree taller than the limit. */
  private built(token: Token, node: TermNode): TermNode {
    let height = 1;
    for (const part of partsOf(node)) height = Math.max(height, (this.heights.get(part) ?? 1) + 1);
    if (height > MAX_NESTING_DEPTH) this.failAt(token, `the expression is ${height} levels deep at ${describe(token)}; the limit is ${MAX_NESTING_DEPTH}`, NESTING_HINT);
    this.heights.set(node, height);
    return node;
  }

  private termList(): TermNode[] {
    this.expect('(');
    const terms: TermNode[] = [];
    if (this.optional(')')) return terms;
    do terms.push(this.term());
    while (this.optional(','));
    this.expect(')', "expected ',' or ')' in the argument list");
    return terms;
  }

  private variableList(): string[] {
    this.expect('(');
    const names: string[] = [];
    if (this.optional(')')) return names;
    do names.push(this.expectVariable().text);
    while (this.optional(','));
    this.expect(')', "expected ',' or ')' in the parameter list");
    return names;
  }

  private namedArguments(): Array<{ name: string; value: TermNode }> {
    this.expect('(');
    const args: Array<{ name: string; value: TermNode }> = [];
    if (this.optional(')')) return args;
    do {
      const name = this.next();
      if (name.kind !== 'identifier' && name.kind !== 'variable') this.failAt(name, `expected a parameter name, found ${describe(name)}`);
      this.expect(':', `expected ':' after parameter name '${name.text}'`, 'tool arguments are written name: Value');
      args.push({ name: name.text, value: this.term() });
    } while (this.optional(','));
    this.expect(')', "expected ',' or ')' in the argument list");
    return args;
  }

  private endDeclaration(what: string): void {
    if (this.optional('.')) return;
    const token = this.peek();
    if (token.kind === 'end') return;
    if (token.kind === 'identifier' && (STATEMENT_KEYWORDS as readonly string[]).includes(token.text)) return;
    this.fail(`unexpected ${describe(token)} at the end of the ${what} declaration`);
  }

  private expectIdentifier(what: string): Token {
    const token = this.next();
    if (token.kind !== 'identifier') {
      const hint = token.kind === 'variable' ? 'names of predicates, tools and contexts start with a lowercase letter' : undefined;
      this.failAt(token, `expected ${what}, found ${describe(token)}`, hint);
    }
    return token;
  }

  private expectVariable(): Token {
    const token = this.next();
    if (token.kind !== 'variable') {
      this.failAt(token, `expected a variable, found ${describe(token)}`, token.kind === 'identifier' ? 'variables start with a capital letter or _' : undefined);
    }
    return token;
  }

  private expectKeyword(word: string): void {
    const token = this.next();
    if (token.kind !== 'identifier' || token.text !== word) this.failAt(token, `expected '${word}', found ${describe(token)}`);
  }

  private optionalKeyword(word: string): boolean {
    const token = this.peek();
    if (token.kind === 'identifier' && token.text === word) {
      this.index++;
      return true;
    }
    return false;
  }

  private expect(punctuation: string, message?: string, hint?: string): void {
    const token = this.peek();
    if (token.kind === 'punctuation' && token.text === punctuation) {
      this.index++;
      return;
    }
    this.failAt(token, `${message ?? `expected '${punctuation}'`}, found ${describe(token)}`, hint);
  }

  optional(punctuation: string): boolean {
    if (this.peekIs(punctuation)) {
      this.index++;
      return true;
    }
    return false;
  }

  private peekIs(punctuation: string): boolean {
    const token = this.peek();
    return token.kind === 'punctuation' && token.text === punctuation;
  }

  private peek(): Token {
    return this.tokens[this.index]!;
  }

  private next(): Token {
    const token = this.tokens[this.index]!;
    if (token.kind !== 'end') this.index++;
    return token;
  }

  fail(message: string, hint?: string): never {
    return this.failAt(this.peek(), message.includes('found') ? message : `${message}, found ${describe(this.peek())}`, hint);
  }

  private failAt(token: Token, message: string, hint?: string): never {
    throw new SyntaxError(token.pos, message, hint);
  }
}

function partsOf(node: TermNode): readonly TermNode[] {
  switch (node.kind) {
    case 'arithmetic':
      return [node.left, node.right];
    case 'list':
      return node.items;
    case 'object':
      return node.entries.map((entry) => entry.value);
    default:
      return [];
  }
}

const NESTING_HINT = 'split it: bind parts to variables in earlier conditions (X = A + B, Y = X * C); the limit keeps a hostile file from exhausting the stack';

function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'the end of the file';
    case 'string':
      return `string ${JSON.stringify(token.text)}`;
    case 'path':
      return `path ${token.text}`;
    default:
      return `'${token.text}'`;
  }
}
