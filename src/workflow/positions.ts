import { isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import { formatPath, type Path } from './path.js';

/** A 1-based line and column in a source text. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** Where each field of a parsed document starts in its text. */
export interface PositionIndex {
  /**
   * The position of the key or value at `path`, or of its nearest ancestor the text has (a missing key is reported
   * at the mapping that lacks it).
   */
  find(path: Path, at: 'key' | 'value'): SourcePosition | undefined;
  /** The position of the value at exactly `path` (as `formatPath` renders it), if the text has it. */
  get(path: string): SourcePosition | undefined;
}

interface Offsets {
  value: number;
  key?: number;
}

/**
 * Indexes every key and value of a YAML document by field path. Aliases are not followed: a path that goes through
 * an alias resolves to the alias itself, so the walk costs one visit per node however much the aliases expand.
 */
export function indexPositions(document: Document, lineCounter: LineCounter): PositionIndex {
  const offsets = new Map<string, Offsets>();
  const root = document.contents;
  if (root) visit(root, [], offsets);
  const toPosition = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  return {
    find(path, at) {
      for (let length = path.length; length >= 0; length--) {
        const found = offsets.get(formatPath(path.slice(0, length)));
        if (found === undefined) continue;
        const exact = length === path.length;
        return toPosition(exact && at === 'key' && found.key !== undefined ? found.key : found.value);
      }
      return undefined;
    },
    get(path) {
      const found = offsets.get(path);
      return found === undefined ? undefined : toPosition(found.value);
    },
  };
}

function visit(node: Node, path: Path, offsets: Map<string, Offsets>, key?: number): void {
  const start = node.range?.[0];
  if (start !== undefined) offsets.set(formatPath(path), key === undefined ? { value: start } : { value: start, key });
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isScalar(pair.key)) continue; // complex keys cannot name a field of a workflow
      const name = String(pair.key.value);
      if (name === '<<') continue; // merged keys are reported at the mapping that merges them
      const keyStart = pair.key.range?.[0];
      const value = pair.value as Node | null;
      if (value) visit(value, [...path, name], offsets, keyStart);
      else if (keyStart !== undefined) offsets.set(formatPath([...path, name]), { value: keyStart, key: keyStart });
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, index) => {
      if (item) visit(item as Node, [...path, index], offsets);
    });
  }
}
