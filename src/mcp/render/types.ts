/**
 * Replies are for the model: a client shows it `JSON.stringify(structuredContent)` when a result has it, else the
 * `content` text. A tool with a renderer answers in compact text (a one-line header, then the payload) and no
 * structuredContent; `json` style gives upstream's JSON fields instead.
 */
export type ReplyStyle = 'text' | 'json';

export interface RenderContext {
  /** The name a tool is listed under (`read` with --no-prefix), for hints that name the next call. */
  listedName(tool: string): string;
}

/** One renderer per result kind; a new tool adds its own module here and sets `render` on its ToolModule. */
export type Renderer = (result: Record<string, unknown>, ctx: RenderContext) => string;
