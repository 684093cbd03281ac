import type { ConversationSessions } from '../session/index.js';
import type { MonitorSession } from './types.js';

/**
 * What a monitor of several workflows gives the monitor of each of its workflows besides the public options: the id
 * spans carry, and the one registry of conversation sessions they all keep state in (so a fork of a conversation
 * finds its source whichever workflow it runs under). Set under a symbol, so it is no option a user can spell.
 */
export const MEMBER = Symbol('panoptes.monitor.member');

export interface MemberOptions {
  workflowId: string;
  conversations: ConversationSessions<MonitorSession>;
}

/** The member options among a monitor's options, if a monitor of several workflows set them. */
export function memberOptionsOf(options: object): MemberOptions | undefined {
  return (options as { [MEMBER]?: MemberOptions })[MEMBER];
}
