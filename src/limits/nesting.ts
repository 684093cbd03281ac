/**
 * How deep a rule term, list, object or `not` may nest. Parsing and every later walk of the syntax tree recurse, so
 * 10,000 nested parentheses overflowed the stack; policies nest a handful of levels.
 */
export const MAX_NESTING_DEPTH = 64;
