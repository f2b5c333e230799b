/**
 * Browser search keys: creation, listing, revocation and resolution, and how a key's forced scope
 * combines with the caller's.
 * @module
 */
export {
  SearchKeyService, hashSearchKey, validateSearchKeyRequest, searchKeyInfo, KEY_CACHE_TTL_MS, MAX_KEYS_PER_WEBSITE, KEY_ACTIONS,
  SEARCH_KEY_PREFIX, type SearchKeyInfo, type CreatedSearchKey, type SearchKeyRequest,
} from './search-key-service.js';
export { applyForcedScope, intersectCondition, restrictFacetBuckets, valueAllowed, type Scope } from './key-scope.js';
