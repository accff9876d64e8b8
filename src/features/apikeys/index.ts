/** Integrator keys of the data API (docs/interface.md section 4): tokens, their storage, and the cached lookup the edge uses. */
export { ApiKey, credentialsOf, DEFAULT_KEY_DAY, DEFAULT_KEY_MINUTE, hashToken, KEY_FORMAT, KeyLimit, type Credentials } from './api-key.ts';
export { createKey, findLiveKey, listKeys, revokeKey, type NewKey } from './api-keys.server.ts';
export { createKeyResolver, type KeyLookup, type KeyResolver } from './key-resolver.ts';
