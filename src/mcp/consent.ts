// A project's MCP servers are code from whoever wrote the repository. Each
// starts only when the person said yes to its exact definition in this
// workspace (remembered by hash: a changed definition asks again), or when
// --allow-mcp names it. Headless and --no-prompt never ask, so never start
// one that was not approved or named.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import type { McpServerDef } from "./config.ts";

interface ConsentFile {
  version: 1;
  /** workspace root → server name → definition hash the person approved. */
  workspaces: Record<string, Record<string, string>>;
}

export class ConsentStore {
  readonly file: string;

  constructor(stateDir: string) {
    this.file = join(stateDir, "mcp-consent.json");
  }

  private read(): ConsentFile {
    try {
      const value = JSON.parse(readFileSync(this.file, "utf8")) as ConsentFile;
      if (value && typeof value.workspaces === "object" && value.workspaces !== null) return value;
    } catch {
      // missing or unreadable: nothing approved yet
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

  remember(root: string, def: McpServerDef): void {
    const data = this.read();
    (data.workspaces[root] ??= {})[def.name] = def.hash;
    writeFileAtomic(this.file, JSON.stringify(data, null, 2) + "\n", { mkdirs: true, mode: 0o600 });
  }
}

export type ConsentAnswer = "yes" | "no";

export interface ConsentOptions {
  root: string;
  /** Servers named by --allow-mcp=NAMES. */
  named: string[];
  /** Whether the person can be asked (a terminal, not --no-prompt). */
  interactive: boolean;
  store: ConsentStore;
  ask(def: McpServerDef, changed: boolean): Promise<ConsentAnswer>;
}

export interface ConsentOutcome {
  start: McpServerDef[];
  skipped: { def: McpServerDef; reason: string }[];
}

/** Which servers start: the user's always; a project's when named, approved before, or approved now. */
export async function decideServers(servers: McpServerDef[], opts: ConsentOptions): Promise<ConsentOutcome> {
  const out: ConsentOutcome = { start: [], skipped: [] };
  for (const def of servers) {
    if (def.source === "user" || opts.named.includes(def.name) || opts.store.approved(opts.root, def)) {
      out.start.push(def);
      continue;
    }
    if (!opts.interactive) {
      out.skipped.push({ def, reason: `a project's server (${def.file}) starts only once you approve it in a terminal, or with --allow-mcp=${def.name}` });
      continue;
    }
    const changed = opts.store.approvedName(opts.root, def.name);
    if ((await opts.ask(def, changed)) === "yes") {
      opts.store.remember(opts.root, def);
      out.start.push(def);
    } else {
      out.skipped.push({ def, reason: "you declined it for this session; it asks again next time" });
    }
  }
  return out;
}
