// The contract every tool implements. The loop knows tools only through this
// shape (via the registry); a tool knows permissions only through `ctx.perms`.
import type { Permissions } from "../perms/permissions.ts";
import type { SessionState } from "../agent/session-state.ts";
import type { ChangeEnv } from "../change/change-set.ts";
import type { ToolImage } from "./image.ts";

/** A JSON Schema subset: what we hand the API and what validate.ts checks. */
export interface JsonSchema {
  type: "object" | "string" | "number" | "integer" | "boolean" | "array";
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: readonly string[];
  additionalProperties?: boolean;
}

/** What a tool may show the person while it runs (progress, live output). */
export interface ToolUI {
  /** One dim progress line on stderr (never stdout: stdout is the answer in -p mode). */
  info(line: string): void;
  /** Verbose-only diagnostics. */
  debug(line: string): void;
  /** A running command's output as it comes (the person's live tail of it); without it, tools print progress lines. */
  output?(text: string): void;
}

export interface ToolContext {
  /** The workspace root, absolute and realpath'd. */
  root: string;
  perms: Permissions;
  session: SessionState;
  ui: ToolUI;
  /** Aborted when the person presses Ctrl+C: stop work, kill children. */
  signal: AbortSignal;
  /** Where file changes are journalled and checkpointed (absent: neither, as in bare tests). */
  changes?: ChangeEnv;
}

/**
 * What a tool returns to the model. A plain string is a success; `images` go after the text (read_file on a PNG).
 * `shown`: what the person sees of it instead, when that differs (`Updated calc.py (+3 -1)`); never sent to the model.
 */
export type ToolOutput = string | { content: string; isError: boolean; images?: ToolImage[]; shown?: string };

/**
 * An expected failure the model can act on (file missing, no match, denied).
 * Thrown by tools; the registry turns it into an `is_error` tool_result. Any
 * other exception is a bug, but is still reported to the model, never thrown
 * into the loop.
 */
export class ToolError extends Error {
  override name = "ToolError";
  /**
   * What the person sees instead of the message, when it differs: the model is told "The person refused
   * writing a.txt", the person "You refused this change." ("" when what they saw already said it).
   */
  readonly shown: string | undefined;

  constructor(message: string, opts: { shown?: string } = {}) {
    super(message);
    this.shown = opts.shown;
  }
}

export interface Tool<Input = Record<string, unknown>> {
  name: string;
  /** Sent on every request: keep it short and precise. */
  description: string;
  inputSchema: JsonSchema & { type: "object" };
  /**
   * Sent to the API instead of `inputSchema` when set: a schema bunker did not
   * write (an MCP server's), which validate.ts's subset cannot check; the
   * server checks it.
   */
  apiInputSchema?: Record<string, unknown>;
  /** The dim one-liner shown per call, e.g. `read_file src/a.ts`. */
  summarize(input: Input): string;
  run(input: Input, ctx: ToolContext): Promise<ToolOutput>;
  /** A tool whose code loads on first call: loads it (never rejects). The loop awaits it before summarizing a call. */
  ready?(): Promise<void>;
}

/** What the model is told about a tool, without the code that runs it or summarizes a call. */
export type ToolOffer = Pick<Tool, "name" | "description" | "inputSchema">;

/** What the model is told about a tool and its summary line, without the code that runs it. */
export type ToolSpec<Input> = Omit<Tool<Input>, "run">;

/**
 * A tool whose code is loaded on its first call: start-up offers it from its
 * spec alone (run_bash's sandbox and web_fetch's proxy, the file tools' change
 * pipeline, patch parser and search code stay unloaded in a turn that never
 * uses them). A spec without `summarize` summarizes with the loaded code.
 */
export function lazyTool<Input>(spec: ToolSpec<Input> | ToolOffer, load: () => Promise<Tool<Input>>): Tool<Input> {
  let loaded: Promise<Tool<Input>> | undefined;
  let code: Tool<Input> | undefined;
  const get = () => (loaded ??= load().then((t) => (code = t)));
  return {
    summarize: (input) => code?.summarize(input) ?? "",
    ...spec,
    run: async (input, ctx) => (await get()).run(input, ctx),
    ready: () => get().then(() => {}, () => {}),
  };
}

/** Erases the input type so tools of different inputs fit in one list. */
export type AnyTool = Tool<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- heterogeneous registry
