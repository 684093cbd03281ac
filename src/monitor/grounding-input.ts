import type { ChatMessage, ToolCall } from '../messages/index.js';

/**
 * What the user's last message answered: the agent's texts since the user's message before it, in order. Read when
 * the user's message enters a state that a `grounded` constraint confirms with.
 * @example
 * answeredText([{ role: 'assistant', content: 'Cancel ABC123? (yes/no)' }, { role: 'user', content: 'yes' }]) // 'Cancel ABC123? (yes/no)'
 */
export function answeredText(messages: readonly ChatMessage[]): string {
  const texts: string[] = [];
  for (let index = messages.length - 2; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'user') break;
    if (message.role === 'assistant' && message.content !== '') texts.unshift(message.content);
  }
  return texts.join('\n');
}

/**
 * Finds the calls of a response by the classifier's evidence: by id when the call has one, else the next call of
 * that name not yet taken.
 */
export function callFinder(calls: readonly ToolCall[]): (name: string, id: string | undefined) => ToolCall | undefined {
  const taken = new Set<ToolCall>();
  return (name, id) => {
    const call = calls.find((candidate) => !taken.has(candidate) && (id === undefined ? candidate.name === name : candidate.id === id));
    if (call) taken.add(call);
    return call;
  };
}
