// A project's MCP servers are code from whoever wrote the repository. Each
// starts only when the person said yes to its exact definition in this
// workspace (remembered by hash: a changed definition asks again), or when
// --allow-mcp names it. A "never" is remembered the same way, so a declined
// server is not asked about at every start (`/mcp start NAME` asks again).
// Headless and --no-prompt never ask, so never start one that was not
// approved or named.
import { readRegularSync } from "../fs/file-kind.ts";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import type { McpServerDef } from "./config.ts";

interface ConsentFile {
  version: 1;
  /** workspace root → server name → definition hash the person approved. */
  workspaces: Record<string, Record<string, string>>;
  /** workspace root → server name → definition hash the person said never to. */
  declined?: Record<string, Record<string, string>>;
}

export class ConsentStore {
  readonly file: string;

  constructor(stateDir: string) {
    this.file = join(stateDir, "mcp-consent.json");
  }

  private read(): ConsentFile {
    try {
      const read = readRegularSync(this.file, this.file, { max: 16 * 1024 * 1024, follow: true });
      const value = read ? (JSON.parse(read.bytes.toString("utf8")) as ConsentFile) : null;
      if (value && typeof value.workspaces === "object" && value.workspaces !== null) return value;
    } catch {
      // missing or unreadable (not a regular file, too large, not JSON): nothing approved yet
    }
    return { version: 1, workspaces: {} };
  }

  approved(root: string, def: McpServerDef): boolean {
    return this.read().workspaces[root]?.[def.name] === def.hash;
  }

  /** Whether some definition of this server was approved here before (so this one is a change). */
  approvedName(root: string, name: string): boolean {
    return this.read().workspaces[root]?.[name] !== undefined;
  }

  /** Whether the person said never to this exact definition here. */
  declined(root: string, def: McpServerDef): boolean {
    return this.read().declined?.[root]?.[def.name] === def.hash;
  }

  /** Remembers the answer to this exact definition: yes (it starts unasked) or never (it is not asked about). */
  remember(root: string, def: McpServerDef, answer: "yes" | "never" = "yes"): void {
    const data = this.read();
    const [keep, drop] = answer === "yes" ? [data.workspaces, data.declined] : [(data.declined ??= {}), data.workspaces];
    (keep[root] ??= {})[def.name] = def.hash;
    if (drop?.[root]) delete drop[root][def.name];
    writeFileAtomic(this.file, JSON.stringify(data, null, 2) + "\n", { mkdirs: true, mode: 0o600 });
  }
}

/** yes (remembered), no (this session), never (remembered until the definition changes). */
export type ConsentAnswer = "yes" | "no" | "never";

export interface ConsentOptions {
  root: string;
  /** Servers named by --allow-mcp=NAMES. */
  named: string[];
  /** Whether the person can be asked (a terminal, not --no-prompt). */
  interactive: boolean;
  store: ConsentStore;
  ask(def: McpServerDef, changed: boolean): Promise<ConsentAnswer>;
  /** Why a server cannot be started at all (its program not found), or null: then it is not asked about. */
  unstartable?(def: McpServerDef): string | null;
}

export interface ConsentOutcome {
  start: McpServerDef[];
  /** `tell`: said at start even where the person was asked about the others (the person could not have been asked about it). */
  skipped: { def: McpServerDef; reason: string; tell?: boolean }[];
}

/** The most start questions at one start (red team 8: a .mcp.json of 400 servers asked 400 times, Enter each). */
export const MAX_QUESTIONS = 5;

/** Which servers start: the user's always; a project's when named, approved before, or approved now. */
export async function decideServers(servers: McpServerDef[], opts: ConsentOptions): Promise<ConsentOutcome> {
  const out: ConsentOutcome = { start: [], skipped: [] };
  let asked = 0;
  for (const def of servers) {
    if (def.source === "user" || opts.named.includes(def.name) || opts.store.approved(opts.root, def)) {
      out.start.push(def);
      continue;
    }
    if (!opts.interactive) {
      out.skipped.push({ def, reason: `a project's server (${def.file}) starts only once you approve it in a terminal, or with --allow-mcp=${def.name}` });
      continue;
    }
    if (opts.store.declined(opts.root, def)) {
      out.skipped.push({ def, reason: declinedReason(def, "never") });
      continue;
    }
    // Nothing to start: said, not asked about (a yes would only be followed by "not found").
    const cannot = opts.unstartable?.(def);
    if (cannot) {
      out.skipped.push({ def, reason: cannot, tell: true });
      continue;
    }
    // A file with hundreds of servers (a command can write one) must not ask hundreds of questions at every start.
    if (asked++ >= MAX_QUESTIONS) {
      out.skipped.push({ def, reason: `not asked: only ${MAX_QUESTIONS} of a project's servers are asked about at a start; /mcp start ${def.name} asks` });
      continue;
    }
    const answer = await askOnce(def, opts);
    if (answer === "yes") out.start.push(def);
    else out.skipped.push({ def, reason: declinedReason(def, answer) });
  }
  return out;
}

/** Asks about one server and remembers a yes or a never. */
export async function askOnce(def: McpServerDef, opts: Pick<ConsentOptions, "root" | "store" | "ask">): Promise<ConsentAnswer> {
  const answer = await opts.ask(def, opts.store.approvedName(opts.root, def.name));
  if (answer !== "no") opts.store.remember(opts.root, def, answer);
  return answer;
}

export function declinedReason(def: McpServerDef, answer: "no" | "never"): string {
  return answer === "never"
    ? `you declined it in this workspace; /mcp start ${def.name} asks again`
    : `you declined it for this session; /mcp start ${def.name} asks again`;
}
