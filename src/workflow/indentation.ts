/**
 * Finds the line whose indentation broke a YAML document, for the one error `panoptes validate` reports instead of the
 * parser's. The `yaml` library reports a bad indentation by its effect, often on the line before the wrong one and
 * twice ("Nested mappings are not allowed in compact mappings", "Implicit keys need to be on a single line"); this
 * walks the lines with the block structure's indentation levels and names the first line that fits none of them.
 *
 * It reads block YAML as workflow files are written (mappings, lists, plain, quoted and block scalars, flow
 * collections), not every corner of the language, so its answer is used only when the parser also failed there.
 */

/** A line whose indentation is wrong: where, what is wrong, and how to indent it. */
export interface IndentationProblem {
  /** 1-based line. */
  line: number;
  /** 1-based column of the line's first character (after the indentation). */
  column: number;
  message: string;
  hint: string;
}

/** A block the lines so far opened: a mapping's keys or a list's `- ` items, at one indentation. */
interface Level {
  indent: number;
  kind: 'map' | 'seq';
  /** The last line at this level, and how it is quoted in a message (`name:`, `- name: verify`). */
  line: number;
  label: string;
}

/** What the lines after the current one may be: part of a multi-line value rather than new structure. */
type Continuation =
  | { kind: 'none' }
  /**
   * A `|` or `>` scalar under a key at `indent`: its first line sets `content`, the indentation every line of it keeps;
   * a line indented less ends it.
   */
  | { kind: 'block'; indent: number; line: number; label: string; content?: { indent: number; line: number } }
  /** A plain scalar that may go on over deeper lines that are neither keys nor items. */
  | { kind: 'plain'; indent: number }
  /** An unclosed flow collection or quoted scalar: lines belong to it until `scan` says it closed. */
  | { kind: 'flow'; scan: FlowScan };

/** The first line whose indentation fits none of the blocks above it, or `undefined` when every line fits. */
export function findIndentationProblem(text: string): IndentationProblem | undefined {
  const lines = text.split(/\r?\n/);
  const levels: Level[] = [];
  // Set after a key with no value (`classification:`) or a bare `-`: the next line may open a deeper block.
  let opened: { indent: number; key: boolean } | undefined;
  let continuation: Continuation = { kind: 'none' };
  for (let index = 0; index < lines.length; index++) {
    const number = index + 1;
    const raw = lines[index]!;
    const indent = raw.length - raw.trimStart().length;
    const content = raw.slice(indent);
    if (continuation.kind === 'flow') {
      if (continuation.scan.feed(raw)) continuation = { kind: 'none' };
      continue;
    }
    if (content === '' || content.startsWith('#')) continue;
    if (continuation.kind === 'block' && indent > continuation.indent) {
      const { content: first } = continuation;
      if (first === undefined) continuation.content = { indent, line: number };
      if (first === undefined || indent >= first.indent) continue;
      return {
        line: number,
        column: indent + 1,
        message: `bad indentation: line ${number} is indented ${plural(indent)}, less than the first line of the text under '${continuation.label}' on line ${continuation.line} (line ${first.line}, ${plural(first.indent)}), so it ends that text`,
        hint: `indent it ${plural(first.indent)}, like line ${first.line}`,
      };
    }
    const leading = raw.slice(0, indent);
    if (leading.includes('\t')) {
      return { line: number, column: 1, message: `bad indentation: line ${number} is indented with a tab, and YAML indents with spaces only`, hint: 'replace the tab with spaces' };
    }
    if (/^(---|\.\.\.)(\s|$)/.test(content) || content.startsWith('%')) {
      levels.length = 0;
      opened = undefined;
      continuation = { kind: 'none' };
      continue;
    }
    // `-name:` is a key named `-name` to YAML, but almost always a list item missing its space: not an indentation.
    if (/^-[^\s-]/.test(content)) return undefined;
    const item = /^-(\s|$)/.test(content);
    const key = !item && keyOf(content) !== undefined;
    if (continuation.kind === 'plain' && indent > continuation.indent && !item && !key) continue; // the value goes on
    const afterText = continuation.kind === 'plain';
    continuation = { kind: 'none' };

    const top = levels.at(-1);
    const kind = item ? 'seq' : 'map';
    const quoted = quote(content);
    if (opened && (indent > opened.indent || (indent === opened.indent && item && opened.key))) {
      // A nested block; a list may start at its key's own column (`states:` then `- name: a`).
      levels.push({ indent, kind, line: number, label: labelOf(content, item) });
    } else if (top === undefined) {
      levels.push({ indent, kind, line: number, label: labelOf(content, item) });
    } else if (indent > top.indent) {
      // Under a list item that holds only text (`- name greeting`), the mistake is more likely a missing colon than
      // the indentation: that is the parser's to say.
      if (top.kind === 'seq' && afterText) return undefined;
      const spaces = top.indent === 0 ? 'do not indent it' : `indent it ${top.indent} space${top.indent === 1 ? '' : 's'}`;
      return {
        line: number,
        column: indent + 1,
        message: `bad indentation: '${quoted}' is indented ${plural(indent)}, more than '${top.label}' on line ${top.line} (${plural(top.indent)}), which has a value, so nothing can be nested under it`,
        hint: `${spaces}, like '${top.label}' on line ${top.line}`,
      };
    } else {
      const popped: Level[] = [];
      // A key at the column of a list that started at its parent key's column ends that list.
      const ends = (level: Level) => level.indent > indent || (!item && level.kind === 'seq' && levels.at(-2)?.indent === indent);
      while (levels.length > 0 && ends(levels.at(-1)!)) popped.push(levels.pop()!);
      const at = levels.at(-1);
      if (at?.indent === indent && at.kind === 'map' && item) {
        // `- ` at the column of the keys of an item: meant as the next item of the list that item is in.
        const list = [...levels].reverse().find((level) => level.kind === 'seq' && level.indent < indent);
        if (list) {
          return {
            line: number,
            column: indent + 1,
            message: `bad indentation: '${quoted}' is indented ${plural(indent)}, like the keys of the item above ('${at.label}' on line ${at.line}), so it cannot start a new item of that list`,
            hint: `${list.indent === 0 ? 'do not indent it' : `indent it ${plural(list.indent)}`}, like '${list.label}' on line ${list.line}`,
          };
        }
      }
      if (at === undefined || at.indent !== indent || (at.kind === 'seq' && !item)) {
        const candidates = [...popped, ...(at ? [at] : [])];
        const like = candidates.filter((level) => level.kind === kind).sort((a, b) => Math.abs(a.indent - indent) - Math.abs(b.indent - indent))[0] ?? candidates[0]!;
        return {
          line: number,
          column: indent + 1,
          message: `bad indentation: '${quoted}' is indented ${plural(indent)}, which lines up with nothing above it: '${like.label}' on line ${like.line} is indented ${like.indent}`,
          hint: `${like.indent === 0 ? 'do not indent it' : `indent it ${plural(like.indent)}`}, like '${like.label}' on line ${like.line}`,
        };
      }
      at.line = number;
      at.label = labelOf(content, item);
    }
    opened = undefined;

    // What this line's value lets the next lines be. An item's own content may be a key (`- name: verify`), whose
    // mapping sits at the column after `- `.
    let valueIndent = indent;
    let rest = content;
    if (item) {
      const after = content.slice(1);
      const gap = after.length - after.trimStart().length;
      rest = after.trimStart();
      if (rest === '' || rest.startsWith('#')) {
        opened = { indent, key: false };
        continue;
      }
      if (keyOf(rest) !== undefined) {
        valueIndent = indent + 1 + gap;
        levels.push({ indent: valueIndent, kind: 'map', line: number, label: labelOf(rest, false) });
      }
    }
    const name = keyOf(rest);
    const value = (name === undefined ? rest : rest.slice(name.length)).trim();
    if (value === '' || value.startsWith('#') || /^[&!]\S*$/.test(value)) {
      if (name !== undefined) opened = { indent: valueIndent, key: true };
    } else if (/^[|>]/.test(value)) {
      continuation = { kind: 'block', indent: valueIndent, line: number, label: name ?? quote(rest) };
    } else if (/^["'[{]/.test(value)) {
      const scan = new FlowScan();
      if (!scan.feed(value)) continuation = { kind: 'flow', scan };
    } else {
      continuation = { kind: 'plain', indent: valueIndent };
    }
  }
  return undefined;
}

const MAX_KEY_SCAN = 1_000;

/** The key of a `key: value` line, colon included (`name:`), or `undefined` when the line is not one. */
function keyOf(content: string): string | undefined {
  // Keys are short; the bound keeps a megabyte-long line from costing a quadratic regex search.
  content = content.slice(0, MAX_KEY_SCAN);
  const match = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"[\]{},|>&*!%@`-][^#]*?|-\S[^#]*?)\s*:(?=\s|$)/.exec(content);
  return match?.[0];
}

/** How a level's line is named in a message: a key as `name:`, an item as its text (`- name: verify`). */
function labelOf(content: string, item: boolean): string {
  return item ? quote(content) : (keyOf(content) ?? quote(content));
}

/** A line's text for a message: its key alone when it opens a block, else the text, shortened. */
function quote(content: string): string {
  const text = content.replace(/\s+#.*$/, '').trimEnd();
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

function plural(spaces: number): string {
  return `${spaces} space${spaces === 1 ? '' : 's'}`;
}

/** Follows a flow collection or quoted scalar over lines: brackets outside quotes, quotes with their escapes. */
class FlowScan {
  private depth = 0;
  private quote: '"' | "'" | undefined;

  /** Reads one more line; true once everything opened is closed. */
  feed(line: string): boolean {
    for (let at = 0; at < line.length; at++) {
      const char = line[at]!;
      if (this.quote === '"') {
        if (char === '\\') at++;
        else if (char === '"') this.quote = undefined;
      } else if (this.quote === "'") {
        if (char === "'" && line[at + 1] === "'") at++;
        else if (char === "'") this.quote = undefined;
      } else if (char === '"' || (char === "'" && /[\s[{,:]/.test(line[at - 1] ?? ' '))) {
        this.quote = char;
      } else if (char === '#' && /\s/.test(line[at - 1] ?? ' ')) {
        break;
      } else if (char === '[' || char === '{') {
        this.depth++;
      } else if (char === ']' || char === '}') {
        this.depth--;
      }
      // Whatever follows the closed value on its line is the parser's to judge.
      if (this.depth <= 0 && this.quote === undefined && (char === ']' || char === '}' || char === '"' || char === "'")) return true;
    }
    return this.depth <= 0 && this.quote === undefined;
  }
}
