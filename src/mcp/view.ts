// What a stdio server is shown of the machine beyond what every sandboxed
// command sees (the system and toolchain directories, the workspace): decided
// by the person, never by whoever wrote the definition. A project's server
// (.mcp.json) gets its program when found on PATH and nothing its arguments
// name outside the workspace; a server from the user's own settings also gets
// the files its arguments name (with their package's folder), never a
// credential store. Either gets what the person granted: the server's `read`
// list in the user's settings.json, and --allow-read.
import { existsSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { isWithin, realpathLoose } from "../perms/workspace.ts";
import type { McpServerDef } from "./config.ts";

export interface ViewContext {
  /** The workspace root (realpath'd). */
  root: string;
  home: string;
  /** The program the definition runs, resolved (null when not found). */
  program: string | null;
  /** Shown to every sandboxed command anyway: system and toolchain directories. */
  shownAnyway: string[];
  /** Credential stores, bunker's state and denied reads: never shown for being named. */
  hidden: string[];
  /** --allow-read paths. */
  granted: string[];
}

export interface ServerView {
  /** Paths shown read-only beyond the workspace and what every command sees: exactly the extra paths. */
  readable: string[];
  /** Paths the definition names outside the workspace that are not shown to it (as the host resolves them). */
  notShown: string[];
}

const MANIFESTS = ["package.json", "pyproject.toml", "Cargo.toml", "go.mod", "deno.json"];

/** The nearest folder above `file` with a package manifest (its dependencies), never the home directory or above; else the file. */
function packageOf(file: string, home: string): string {
  for (let dir = dirname(file); dir !== dirname(dir) && !isWithin(dir, home); dir = dirname(dir)) {
    if (MANIFESTS.some((m) => existsSync(join(dir, m)))) return dir;
  }
  return file;
}

/** The path an argument names: the whole argument, or the value of `--flag=VALUE`. */
function argumentPath(arg: string): string {
  return /^--?[A-Za-z0-9][\w.-]*=(.+)$/.exec(arg)?.[1] ?? arg;
}

export function serverView(def: McpServerDef, ctx: ViewContext): ServerView {
  const readable: string[] = [];
  const notShown: string[] = [];
  const real = (p: string) => realpathLoose(p).real;
  const within = (dirs: string[], p: string) => dirs.some((d) => isWithin(real(d), real(p)));
  const seenAt = (p: string) => isWithin(ctx.root, p) || ctx.shownAnyway.some((d) => isWithin(d, p) || isWithin(real(d), p));
  // Seen in the sandbox: what the path leads to, and the path itself by its name. A link where the sandbox shows
  // nothing (its /tmp is its own) to a file it shows (/tmp/x/bun -> /usr/lib/bun) is not there by that name:
  // the server's start failed with a broken pipe. Such a name is shown (a user's server, a program on PATH),
  // or refused with how to grant it (a project's, as any path it names outside the workspace).
  const visible = (p: string) => seenAt(real(p)) && seenAt(join(real(dirname(p)), basename(p)));
  const show = (p: string) => {
    if (!visible(p) && !readable.includes(p)) readable.push(p);
  };
  const refuse = (p: string) => {
    if (!notShown.includes(real(p))) notShown.push(real(p));
  };
  const user = def.source === "user";
  if (def.transport.type !== "stdio") return { readable, notShown };

  const { command, args } = def.transport;
  // A program found on PATH is the person's; one a project names by path must lie where it is seen anyway.
  if (ctx.program && !within(ctx.hidden, ctx.program)) {
    if (user || !command.includes("/")) show(ctx.program);
    else if (!visible(ctx.program)) refuse(ctx.program);
  }
  for (const arg of args) {
    const named = argumentPath(arg);
    const path = isAbsolute(named) ? named : resolve(ctx.root, named);
    if (!existsSync(path) || visible(path)) continue;
    if (user && isAbsolute(named) && !within(ctx.hidden, path)) show(packageOf(path, ctx.home));
    else refuse(path);
  }
  // What the person granted, whoever wrote the definition.
  for (const p of [...def.read, ...ctx.granted]) if (existsSync(p)) show(p);
  return { readable, notShown: notShown.filter((p) => !readable.some((r) => isWithin(r, p))) };
}
