/** Moved to the language registry (./languages); kept one step for importers on other branches. */
export { languageIdFromPath } from './languages';
