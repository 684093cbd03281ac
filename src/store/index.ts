export {
  createMemorySessionStore,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_TTL_MS,
  type MemorySessionStore,
  type MemorySessionStoreOptions,
  type SessionStore,
} from './session-store.js';
