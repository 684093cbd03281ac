/**
 * Panoptes for langchain. Not implemented yet: this entry point exists so the package's exports are stable,
 * and exports nothing until the adapter lands.
 * @module panoptes/langchain
 */
export {};
