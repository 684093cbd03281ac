/**
 * `panoptes/redis`: sessions shared through Redis. Loads the official `redis` client (an
 * optional peer dependency), so it is a subpath of its own and the core never imports it.
 * @module
 */
export { createRedisSessionStore } from './redis-session-store.js';
export {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_LEASE_MS,
  DEFAULT_LOCK_WAIT_MS,
  DEFAULT_REDIS_KEY_PREFIX,
  type RedisCommandClient,
  type RedisSessionStore,
  type RedisSessionStoreOptions,
  type RedisStoreMissCause,
} from './types.js';
export { createRedisConversationPlacement, type RedisConversationPlacement, type RedisConversationPlacementOptions } from './conversation-placement.js';
export { createRedisResponseRecords, type RedisResponseRecord, type RedisResponseRecords, type RedisResponseRecordsOptions } from './response-records.js';
export { redactUrl } from './redact-url.js';
