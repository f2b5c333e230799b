// Moved to recommend/map-catalog.ts (also `@aisle/engine/internal`, for the bench's evaluations).
export { MapCatalog } from '../map-catalog.js';
