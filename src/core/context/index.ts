/** Context modes: overview (repository map), structure (outline with line ranges), full (paginated content). */
export * from './types';
export { hasGrammar, GRAMMAR_FILES } from './node/treeSitter';
export { structure, enclosingSymbol, findSymbol, countLines, type EnclosingSymbol, type StructureOptions } from './structure';
export { renderStructureText, renderStructureJson, rangeTag } from './render';
export { paginate, nextCallHint, DEFAULT_PAGE_TOKENS, type Page, type PageRequest } from './full';
export { RepoMap, DEFAULT_OVERVIEW_BUDGET, type OverviewResult, type RepoMapStats } from './repoMap';
export {
  ContextService,
  DEFAULT_CONTEXT_SETTINGS,
  type ContextReply,
  type ContextServiceDeps,
  type ContextSettings,
  type FullReply,
  type OverviewReply,
  type ReadMode,
  type ReadRequest,
  type StructureReply,
  type PathResolver,
} from './node/service';
