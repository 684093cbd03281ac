/**
 * The monitor's edits carried over to a request whose messages are not one core message each: the Responses API's
 * input items (a call and its message merge into one assistant turn) and Anthropic's messages (a user message with
 * tool results is several core messages). Each core message knows the item it was read from; an edit lands on that
 * item, and an added message goes after the item the message before it was read from.
 * @module
 */
import type { ChatMessage } from '../../messages/index.js';
import { editsOf } from '../translate.js';

/** Where a core message was read from: an item of the request's list (its index), or a field outside the list (`instructions`, `system`). */
export type ItemSource = number | 'outside';

/** The edits of one request, by where they land. */
export interface ItemEdits {
  /** Text appended to the field outside the list, if any. */
  outside: string;
  /** Text appended to items, by index. */
  appended: Map<number, string>;
  /** Messages added, by the index of the item they follow (-1: before every item). */
  added: Map<number, ChatMessage[]>;
}

/**
 * Where the monitor's edits (`edited`, made from `chat`) land, given the source of each message of `chat`.
 * @example
 * itemEdits(chat, ['outside', 0, 2], before.messages) // { outside: '\n\n[WORKFLOW GUIDANCE] ...', appended: Map {}, added: Map {} }
 */
export function itemEdits(chat: readonly ChatMessage[], sources: readonly ItemSource[], edited: readonly ChatMessage[]): ItemEdits {
  const edits: ItemEdits = { outside: '', appended: new Map(), added: new Map() };
  let after = -1; // the item the next added message follows
  for (const edit of editsOf(chat, edited)) {
    if (edit.kind === 'added') {
      const list = edits.added.get(after) ?? [];
      list.push(edit.message);
      edits.added.set(after, list);
      continue;
    }
    const source = sources[edit.at]!;
    if (source !== 'outside') after = source;
    if (edit.kind !== 'appended' || edit.suffix === '') continue;
    if (source === 'outside') edits.outside += edit.suffix;
    else edits.appended.set(source, (edits.appended.get(source) ?? '') + edit.suffix);
  }
  return edits;
}

/**
 * `items` with the edits applied: `append` gives an item its text, `make` turns an added message into an item. Added
 * messages that precede every item are left to the caller (`before`): a system message there belongs in the field
 * outside the list.
 */
export function withItemEdits<Item>(items: readonly Item[], edits: ItemEdits, append: (item: Item, suffix: string) => Item, make: (message: ChatMessage) => Item): Item[] {
  const result: Item[] = [];
  for (const message of (edits.added.get(-1) ?? []).filter((added) => added.role !== 'system')) result.push(make(message));
  items.forEach((item, index) => {
    const suffix = edits.appended.get(index);
    result.push(suffix === undefined ? item : append(item, suffix));
    for (const message of edits.added.get(index) ?? []) result.push(make(message));
  });
  return result;
}

/** The text of system messages added before every item (no system prompt to append to): for the field outside the list. */
export function addedSystemText(edits: ItemEdits): string | undefined {
  const system = (edits.added.get(-1) ?? []).filter((message) => message.role === 'system');
  return system.length === 0 ? undefined : system.map((message) => message.content).join('\n\n');
}

/** Whether the edits change anything. */
export function hasEdits(edits: ItemEdits): boolean {
  return edits.outside !== '' || edits.appended.size > 0 || edits.added.size > 0;
}
