// @vitest-environment jsdom
// Mermaid's parser runs in Node, but it sanitises labels with DOMPurify, which needs a DOM: jsdom gives it one.
// mermaid 11, not 12: 12 needs Node 22.12, and this package supports Node 20.19.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MERMAID_RESERVED_IDS } from '../../src/workflow/mermaid-ids.js';
import { parseWorkflow, workflowToMermaid } from '../../src/workflow/index.js';
import { yaml } from './helpers.js';

// Imported by a name tsc does not follow: Mermaid's types bring DOM and d3 types into the whole program, which then
// disagree with Node's (ReadableStream iteration) and with @huggingface/transformers' typed arrays.
const MERMAID = 'mermaid';
const { default: mermaid } = (await import(MERMAID)) as { default: Mermaid };

// A path, not a URL: under jsdom `URL` is jsdom's, which `readFileSync` does not take.
const AWKWARD = readFileSync(join(import.meta.dirname, '../fixtures/workflows/awkward-names.yaml'), 'utf8');

/**
 * What the real Mermaid parser makes of a diagram: the state ids (without the start and end pseudo-states), each node's
 * label by id, the edges as `from -> to` by label, and the notes by state id.
 */
async function parsed(text: string): Promise<{ states: string[]; labels: Map<string, string>; edges: string[]; notes: Map<string, string> }> {
  await mermaid.parse(text); // throws on a syntax error, and registers the diagram type for the next call
  const { db } = (await mermaid.mermaidAPI.getDiagramFromText(text)) as { db: MermaidStateDb };
  const labels = new Map(db.getData().nodes.map((node) => [node.id, String(node.label)]));
  const notes = new Map([...db.getStates().values()].filter((state) => state.note).map((state) => [state.id, state.note!.text]));
  // A node labelled `name<br><i>description</i>` is shown as `name`.
  const name = (id: string) => (labels.get(id) ?? id).replace(/<br>.*$/, '');
  const edges = db.getRelations().map((relation) => `${name(relation.id1)} -> ${name(relation.id2)}${relation.relationTitle ? ` : ${relation.relationTitle}` : ''}`);
  const states = [...db.getStates().keys()].filter((id) => !/^root_(start|end)$/.test(id)).sort();
  return { states, labels, edges: edges.sort(), notes };
}

/** The part of Mermaid this test uses. */
interface Mermaid {
  parse(text: string, options?: { suppressErrors?: boolean }): Promise<unknown>;
  mermaidAPI: { getDiagramFromText(text: string): Promise<{ db: unknown }> };
}

interface MermaidStateDb {
  getData(): { nodes: Array<{ id: string; label?: unknown }> };
  getStates(): Map<string, { id: string; note?: { text: string } }>;
  getRelations(): Array<{ id1: string; id2: string; relationTitle?: string }>;
}

/** A two-state workflow whose first state has `name`. */
function workflowWith(name: string) {
  return parseWorkflow(
    yaml('name: w', 'states:', `  - name: ${JSON.stringify(name)}`, '    initial: true', '  - name: done', '    terminal: true', 'transitions:', `  - { from: ${JSON.stringify(name)}, to: done }`),
  );
}

describe('workflowToMermaid, checked with the real Mermaid parser (issue 13, item 8)', () => {
  it('draws states named like Mermaid keywords, and distinct states whose names differ only in punctuation', async () => {
    const { labels, edges, notes, states } = await parsed(workflowToMermaid(parseWorkflow(AWKWARD)));
    expect(edges).toEqual([
      "Class -> done",
      "a-b -> state",
      "a_b -> Class : size(metadata.ids) > 0 && metadata.kind == 'xﬂ°°58¶ßﬂ°°58¶ßy'", // Mermaid's placeholder for `#58;`, drawn as ':'
      'done -> root_end',
      'note -> a-b',
      'note -> a_b',
      'root_start -> note',
      'state -> done',
    ]);
    expect(labels.get('note_')).toBe("note<br><i>Takes a 'note'; keeps it</i>");
    expect(states).toEqual(['Class_', 'a_b', 'a_b_2', 'done', 'note_', 'state_']);
    expect(notes.get('state_')).toBe('precedence note_first (error): note before state');
  });

  it.each([...MERMAID_RESERVED_IDS].flatMap((word) => [word, word.toUpperCase()]))('draws a state named %s', async (name) => {
    const { edges } = await parsed(workflowToMermaid(workflowWith(name)));
    expect(edges).toContain(`${name} -> done`);
  });

  it.each(['with space', 'dotted.name', 'x:y', 'über', '#59;', 'a "quoted" <b>'])('draws a state named %j', async (name) => {
    const { states, edges } = await parsed(workflowToMermaid(workflowWith(name)));
    expect(states).toHaveLength(2);
    expect(edges).toHaveLength(3); // start -> the state -> done -> end
  });

  it('keeps a transition label whole when it holds ; or ::', async () => {
    const text = yaml('name: w', 'states:', '  - name: a', '    initial: true', '  - name: b', 'transitions:', '  - { from: a, to: b, guard: { expression: "metadata.kind == \'a::b;c\'" } }');
    const { edges } = await parsed(workflowToMermaid(parseWorkflow(text)));
    expect(edges).toContain("a -> b : metadata.kind == 'aﬂ°°58¶ßﬂ°°58¶ßbﬂ°°59¶ßc'");
  });
});

describe('the keyword list', () => {
  it('holds exactly the words the parser rejects as a state id, among the words its lexer knows', async () => {
    const candidates = ['state', 'note', 'class', 'classDef', 'style', 'scale', 'click', 'href', 'default', 'direction', 'end', 'as', 'left', 'right', 'of', 'stateDiagram', 'accTitle', 'accDescr', 'hide', 'fork', 'join', 'choice', 'TB', 'LR'];
    const rejected: string[] = [];
    for (const word of candidates) {
      const valid = await mermaid.parse(`stateDiagram-v2\n  [*] --> ${word}\n  ${word} --> b\n`, { suppressErrors: true });
      if (!valid) rejected.push(word.toLowerCase());
    }
    expect(rejected.sort()).toEqual([...MERMAID_RESERVED_IDS].sort());
  });
});
