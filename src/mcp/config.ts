// Which MCP servers are configured: `mcpServers` in the user's settings.json
// and the project's `.mcp.json`, both in Claude Code's format —
//   {"mcpServers": {"NAME": {"command": "...", "args": [...], "env": {...}}}}
//   {"mcpServers": {"NAME": {"type": "http", "url": "...", "headers": {...}}}}
// with ${VAR} and ${VAR:-default} expanded from the environment. Pure apart
// from reading the two files; nothing here starts a server.
//
// A project's servers are code from whoever wrote the repository: they start
// only after consent (consent.ts), and what only the person may grant (`net`,
// `write`, `read`) is taken from the user's file alone: on the user's own
// servers, or as an entry of only those keys naming a project's server.
import { lstatSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { FileKindError, readRegularSync } from "../fs/file-kind.ts";
import { sanitize } from "./naming.ts";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { importCandidates } from "./local-imports.ts";
import { isWithin } from "../perms/workspace.ts";
// Required by a project server's consent hash only: a run with no such server loads neither (their tables, built on
// load, cost a read-only headless turn 0.3-0.4 ms before its first request: issue 17).
const runEntry = () => require("../perms/run-entry.ts") as typeof import("../perms/run-entry.ts");
const namedScripts = () => require("../perms/named-scripts.ts") as typeof import("../perms/named-scripts.ts");

export type McpSource = "user" | "project";

export type McpTransportDef =
  | { type: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { type: "http"; url: string; headers: Record<string, string> };

export interface McpServerDef {
  /** As configured; what rules and flags name (`mcp:NAME/tool`, --allow-mcp=NAME). */
  name: string;
  source: McpSource;
  /** The file it was defined in. */
  file: string;
  transport: McpTransportDef;
  /** The person's environment variables the definition takes in (every ${VAR} it expands), for the consent question. */
  passes: string[];
  /** The variables a stdio definition sets, as written (`${VAR}` not expanded: a token is never shown), for the consent question. */
  envWritten?: Record<string, string>;
  /** Hosts its sandbox may reach (user file only). */
  net: string[];
  /** Absolute paths its sandbox may write (user file only). */
  write: string[];
  /** Absolute paths outside the workspace its sandbox shows read-only (user file only). */
  read: string[];
  /** How long one tool call may take. */
  timeoutMs: number;
  /** sha256 of the definition as written: consent is remembered against it. */
  hash: string;
}

export interface McpConfig {
  servers: McpServerDef[];
  /** Shown once at start-up: entries that were skipped, and why. */
  warnings: string[];
}

export const DEFAULT_CALL_TIMEOUT_MS = 120_000;
/** No leading dot: "." or ".." would make a server's state directory another's (or bunker's own). */
const NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,47}$/;
const KNOWN_KEYS = new Set(["type", "command", "args", "env", "url", "headers", "net", "write", "read", "timeout", "description"]);
/** What only the person grants a server. */
const GRANT_KEYS = ["net", "write", "read"] as const;

/** The grants of one server in the user's file. */
export type ServerGrants = Pick<McpServerDef, "net" | "write" | "read">;

type Env = Record<string, string | undefined>;

/** A problem with one server entry: that server is skipped, the rest load. */
class EntryError extends Error {}

/** `${VAR}` and `${VAR:-default}` from `env`; the names used are added to `used`. */
export function expandVars(text: string, env: Env, used: Set<string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback: string | undefined) => {
    used.add(name);
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback;
    throw new EntryError(`it uses \${${name}}, which is not set`);
  });
}

function stringList(value: unknown, what: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) throw new EntryError(`"${what}" must be a list of strings`);
  return value as string[];
}

function stringMap(value: unknown, what: string): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value) || Object.values(value).some((v) => typeof v !== "string")) {
    throw new EntryError(`"${what}" must be an object of strings`);
  }
  return value as Record<string, string>;
}

/** A stable text of a JSON value (keys sorted), so the hash does not depend on key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export function definitionHash(raw: unknown): string {
  // Bun's own hasher: node:crypto costs 1.5–2 ms to load, and every headless turn reads this config.
  return new Bun.CryptoHasher("sha256").update(canonical(raw)).digest("hex");
}

interface ParseContext {
  source: McpSource;
  file: string;
  root: string;
  home: string;
  env: Env;
  defaultTimeoutMs: number;
}

/** One entry of `mcpServers`; throws EntryError. */
function parseEntry(name: string, raw: unknown, ctx: ParseContext, warnings: string[]): McpServerDef {
  if (!NAME.test(name)) throw new EntryError("a server name may hold only letters, digits, '_', '.' and '-' (at most 48), and may not start with '.'");
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new EntryError('a server is an object like {"command": "npx", "args": ["-y", "some-server"]}');
  const entry = raw as Record<string, unknown>;
  for (const key of Object.keys(entry)) if (!KNOWN_KEYS.has(key)) warnings.push(`${ctx.file}: server "${name}": unknown key "${key}" ignored`);
  const used = new Set<string>();
  const expand = (s: string) => expandVars(s, ctx.env, used);
  const type = entry.type ?? (entry.url !== undefined ? "http" : "stdio");
  let transport: McpTransportDef;
  let envWritten: Record<string, string> | undefined;
  if (type === "stdio") {
    if (typeof entry.command !== "string" || entry.command.trim() === "") throw new EntryError('"command" must name the program to run');
    const env = stringMap(entry.env, "env");
    envWritten = env;
    transport = {
      type: "stdio",
      command: expand(entry.command),
      args: stringList(entry.args, "args").map(expand),
      env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, expand(v)])),
    };
  } else if (type === "http" || type === "streamable-http") {
    if (typeof entry.url !== "string") throw new EntryError('"url" must be the server\'s address, like "https://example.com/mcp"');
    const url = expand(entry.url);
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new EntryError(`"${url}" is not an http(s) URL`);
    const headers = stringMap(entry.headers, "headers");
    transport = { type: "http", url, headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, expand(v)])) };
  } else {
    throw new EntryError(`type ${JSON.stringify(type)} is not supported; use "stdio" (command) or "http" (url)`);
  }

  // What only the person may grant: never from a repository's file.
  let grants: ServerGrants = { net: [], write: [], read: [] };
  if (ctx.source === "user") grants = parseGrants(entry, ctx);
  else if (GRANT_KEYS.some((k) => entry[k] !== undefined)) {
    warnings.push(`${ctx.file}: server "${name}": "net", "write" and "read" are ignored in a project's file; grant them in your own settings.json`);
  }
  const timeout = entry.timeout;
  if (timeout !== undefined && !(typeof timeout === "number" && Number.isInteger(timeout) && timeout > 0)) {
    throw new EntryError('"timeout" must be a whole number of milliseconds');
  }
  return {
    name,
    source: ctx.source,
    file: ctx.file,
    transport,
    passes: [...used].sort(),
    ...(envWritten ? { envWritten } : {}),
    ...grants,
    timeoutMs: (timeout as number | undefined) ?? ctx.defaultTimeoutMs,
    hash: ctx.source === "project" && transport.type === "stdio" ? projectServerHash(raw, transport, ctx.root) : definitionHash(raw),
  };
}

/** The most of one code file a project server's consent hash reads; a larger one counts by its size and time. */
const CODE_FILE_MAX = 4 * 1024 * 1024;

/** How much of a package folder (`python -m pkg`) its consent hash reads: files, bytes, and depth of folders. */
export const PACKAGE_BOUNDS = { files: 2000, bytes: 32 * 1024 * 1024, depth: 12 };

/**
 * A project server's consent hash: its definition, and the workspace files its command, arguments and variables
 * name (a `--flag=FILE` too, and each entry of a `:` list; `BUN_OPTIONS=--preload ./x.ts`), by content. Consent is to the code as much as to the definition (red team 8 F10: the model
 * rewrote tools/helper_mcp.py unasked, and the same approved definition then started it and handed it the token).
 * A module `-m NAME` runs from the workspace (a project's server starts there): its package folder's files (up to
 * PACKAGE_BOUNDS), or NAME.py. A folder named otherwise (`.`, a data folder) counts as a folder, not by its content.
 * A definition that names no file here hashes as before.
 */
function projectServerHash(raw: unknown, transport: { command: string; args: string[]; env: Record<string, string> }, root: string): string {
  const { folderEntries, moduleFiles, moduleNames, nodeCandidates, pythonModulesIn, pythonSiblings } = runEntry();
  const { namedPaths } = namedScripts();
  const words = [transport.command, ...transport.args, ...Object.values(transport.env).flatMap((v) => v.split(/[\s:]+/))];
  const code: [string, string][] = [];
  // Each code file read, with where Python finds its top-level imports (the script's folder; the workspace for -m).
  const queue: [string, string][] = [];
  const add = (file: string, digest: string, base: string) => {
    if (code.some(([f]) => f === file)) return;
    code.push([file, digest]);
    queue.push([file, base]);
    // What Python runs in place of a module's source: its cached bytecode, an extension module (run-entry.ts, R10-06).
    for (const sib of pythonSiblings(file)) {
      const d = fileDigest(sib.path);
      if (d !== null && !code.some(([f]) => f === sib.path)) code.push([sib.path, d]);
    }
  };
  // The words node or python is handed as what it runs (named-scripts.ts, as for a hook).
  const handed = new Set<string>();
  // The folders python puts first on its module path (the workspace for -m, a script's own folder): which modules are
  // there counts, since a new one is imported in place of the standard library's or an installed one of its name.
  const first = new Set<string>();
  namedPaths([transport.command, ...transport.args].join(" "), handed, first);
  for (const d of first) {
    const dir = absoluteIn(root, d);
    if (isWithin(root, dir)) code.push([dir, `python looks here first for: ${pythonModulesIn(dir).map((m) => relative(dir, m)).sort().join(" ")}`]);
  }
  for (const word of words) {
    if (word.startsWith("-") && !word.includes("=")) continue;
    const path = word.startsWith("-") ? word.slice(word.indexOf("=") + 1) : word;
    if (path === "" || /^[a-z][a-z0-9+.-]*:/i.test(path)) continue;
    const file = absoluteIn(root, path);
    if (!isWithin(root, file) || code.some(([f]) => f === file)) continue;
    const digest = fileDigest(file);
    if (digest !== null) add(file, digest, dirname(file));
    // A folder handed to node or python as what it runs runs its entry file (run-entry.ts: package.json's main,
    // index.js, __main__.py); a folder passed as data (`--root .`) is not read.
    // node tries tools.js, tools.json… before the folder tools/ (R10-14): whichever is there is what runs.
    if (handed.has(word)) {
      for (const entry of nodeCandidates(file)) {
        const d = isWithin(root, entry) ? fileDigest(entry) : null;
        if (d !== null) add(entry, d, dirname(entry));
      }
    }
    if (handed.has(word) && isFolder(file)) {
      for (const entry of folderEntries(file)) {
        const d = isWithin(root, entry) ? fileDigest(entry) : null;
        if (d !== null) add(entry, d, dirname(entry));
      }
    }
  }
  const addPackage = (folder: string, base: string) => {
    for (const [f, d] of packageDigests(folder)) add(f, d, base);
  };
  for (const name of moduleNames(transport.args)) {
    const top = name.split(".")[0]!;
    const folder = join(root, top);
    // A link to the package (`srv -> src/srv`) is followed, as Python follows it.
    if (isFolder(folder)) addPackage(folder, root);
    // The files Python runs for it (run-entry.ts), the package's or not.
    for (const f of moduleFiles(name)) {
      const digest = fileDigest(join(root, f));
      if (digest !== null) add(join(root, f), digest, root);
    }
  }
  // What those files import from the workspace (local-imports.ts), and what that imports, up to MAX_IMPORTED files.
  let followed = 0;
  for (; queue.length > 0 && followed < MAX_IMPORTED; followed++) {
    const [file, base] = queue.shift()!;
    let text: string;
    try {
      const got = readRegularSync(file, file, { max: CODE_FILE_MAX, follow: true });
      if (!got) continue;
      text = got.bytes.toString("utf8");
    } catch {
      continue; // a folder, a FIFO, too large: counted by what it is already
    }
    for (const alternatives of importCandidates(file, text, base)) {
      for (const alt of alternatives) {
        const path = alt.endsWith("/") ? alt.slice(0, -1) : alt;
        // Outside the workspace (an installed module, `../../elsewhere`): not the project's code to follow.
        if (!isWithin(root, path)) break;
        // Through a link as Python and Node follow it (a file of it a link to another file of the workspace).
        const folder = isFolder(path);
        if (alt.endsWith("/") ? !folder : folder || kindOf(path) === null) continue;
        if (alt.endsWith("/")) addPackage(path, base);
        else {
          const digest = fileDigest(path);
          if (digest !== null) add(path, digest, base);
        }
        break;
      }
    }
  }
  if (queue.length > 0) code.push([root, `more than ${MAX_IMPORTED} files imported: the rest not followed`]);
  return code.length === 0 ? definitionHash(raw) : definitionHash({ definition: raw, code });
}

/** The most code files a project server's consent hash follows imports through. */
export const MAX_IMPORTED = 500;

/** A file's content hash; what can be said of it without reading it (a folder, a FIFO, too large); null when absent. */
function fileDigest(file: string): string | null {
  try {
    const got = readRegularSync(file, file, { max: CODE_FILE_MAX, follow: true });
    return got ? new Bun.CryptoHasher("sha256").update(got.bytes).digest("hex") : null;
  } catch (e) {
    return e instanceof FileKindError ? e.message : null;
  }
}

/** Whether `path` is a folder, or a link that leads to one. */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function kindOf(path: string): "dir" | "link" | "other" | null {
  try {
    const st = lstatSync(path);
    return st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : "other";
  } catch {
    return null;
  }
}

/**
 * Each file of a package folder by content (a link by where it points and by what is there, as Python follows it; its
 * `__pycache__` is read for each source's own bytecode, by projectServerHash), in name order, up to PACKAGE_BOUNDS; past them, one entry saying so.
 */
export function packageDigests(folder: string): [string, string][] {
  const out: [string, string][] = [];
  let bytes = 0;
  const walk = (dir: string, depth: number): boolean => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (e) {
      out.push([dir, `not listable: ${(e as NodeJS.ErrnoException).code ?? "error"}`]);
      return true;
    }
    for (const name of names) {
      if (name === "__pycache__") continue;
      const path = join(dir, name);
      const kind = kindOf(path);
      if (kind === "dir") {
        if (depth >= PACKAGE_BOUNDS.depth) out.push([path, "a folder too deep to read"]);
        else if (!walk(path, depth + 1)) return false;
        continue;
      }
      if (out.length >= PACKAGE_BOUNDS.files || bytes >= PACKAGE_BOUNDS.bytes) {
        out.push([folder, `more than ${PACKAGE_BOUNDS.files} files or ${PACKAGE_BOUNDS.bytes / 1024 / 1024} MB: the rest not read`]);
        return false;
      }
      if (kind === "link") {
        let text: string;
        try {
          text = readlinkSync(path);
        } catch {
          continue; // gone meanwhile
        }
        // What it leads to runs as the package's code: by content too (a folder walked, within the same bounds).
        if (!isFolder(path)) out.push([path, `a link to ${text}: ${fileDigest(path) ?? "nothing there"}`]);
        else {
          out.push([path, `a link to ${text}`]);
          if (depth >= PACKAGE_BOUNDS.depth) out.push([path, "a folder too deep to read"]);
          else if (!walk(path, depth + 1)) return false;
        }
        continue;
      }
      const digest = fileDigest(path);
      if (digest === null) continue;
      try {
        bytes += lstatSync(path).size;
      } catch {
        // gone meanwhile
      }
      out.push([path, digest]);
    }
    return true;
  };
  walk(folder, 0);
  return out;
}

/** `net`, `write` and `read` of a user-file entry: paths absolute (`~/` is the home directory, others from the workspace). */
function parseGrants(entry: Record<string, unknown>, ctx: ParseContext): ServerGrants {
  const absolute = (p: string) => (p === "~" || p.startsWith("~/") ? join(ctx.home, p.slice(2)) : resolve(ctx.root, p));
  const net = stringList(entry.net, "net").map((h) => h.toLowerCase());
  const write = stringList(entry.write, "write").map(absolute);
  const read = stringList(entry.read, "read").map(absolute);
  for (const p of write) {
    for (const inner of [".git", ".bunker"]) {
      if (isWithin(p, join(ctx.root, inner))) throw new EntryError(`"write" may not cover ${join(ctx.root, inner)}`);
    }
  }
  return { net, write, read };
}

/** A user-file entry with only grant keys: what the person grants the project's server of that name. */
function isGrantOnly(raw: unknown): raw is Record<string, unknown> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return false;
  const keys = Object.keys(raw);
  return keys.length > 0 && keys.every((k) => (GRANT_KEYS as readonly string[]).includes(k));
}

export interface ParsedServers extends McpConfig {
  /** Grants for a project's servers, by name (user file only). */
  grants: Record<string, ServerGrants>;
}

/** The servers of one file's `mcpServers` object; bad entries become warnings. */
export function parseMcpServers(servers: unknown, ctx: ParseContext): ParsedServers {
  const warnings: string[] = [];
  const grants: Record<string, ServerGrants> = {};
  if (servers === undefined) return { servers: [], warnings, grants };
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    return { servers: [], warnings: [`${ctx.file}: "mcpServers" must be an object of servers by name; no server from it was started`], grants };
  }
  const out: McpServerDef[] = [];
  for (const [name, raw] of Object.entries(servers)) {
    try {
      if (ctx.source === "user" && isGrantOnly(raw)) grants[name] = parseGrants(raw, ctx);
      else out.push(parseEntry(name, raw, ctx, warnings));
    } catch (err) {
      if (!(err instanceof EntryError)) throw err;
      warnings.push(`${ctx.file}: MCP server "${name}" skipped: ${err.message}`);
    }
  }
  return { servers: out, warnings, grants };
}

/** The most of an MCP config file bunker reads. */
const MAX_CONFIG_BYTES = 1024 * 1024;

function readJson(file: string, warnings: string[]): Record<string, unknown> | undefined {
  let text: string;
  try {
    // A command may have made it a FIFO or a link to /dev/zero: never waited on, never read past 1 MiB.
    const read = readRegularSync(file, file, { max: MAX_CONFIG_BYTES, follow: true });
    if (!read) return undefined;
    text = read.bytes.toString("utf8");
  } catch (err) {
    if (!(err instanceof FileKindError)) throw err;
    warnings.push(`${err.message}; no MCP server from it was started`);
    return undefined;
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    warnings.push(`${file}: not a JSON object; no MCP server from it was started`);
  } catch (err) {
    warnings.push(`${file}: invalid JSON (${(err as Error).message}); no MCP server from it was started`);
  }
  return undefined;
}

export interface LoadOptions {
  root: string;
  /** The user's settings.json. */
  userFile: string;
  home: string;
  env: Env;
}

/**
 * The user's servers, then the project's. A project server whose name a user
 * server already has is skipped: the person's own definition wins. Names are
 * compared as the model sees them (`mcp__<name>__<tool>`, see naming.ts): a
 * project's `my_docs` must not take the tools of the person's `my.docs`, and a
 * name with `__` in it would make its tools' names ambiguous. A user entry of
 * only `net`/`write`/`read` grants those to the project's server.
 */
export function loadMcpConfig(opts: LoadOptions): McpConfig {
  const warnings: string[] = [];
  const fromEnv = Number(opts.env.BUNKER_MCP_TIMEOUT_MS);
  const defaultTimeoutMs = Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_CALL_TIMEOUT_MS;
  const base = { root: opts.root, home: opts.home, env: opts.env, defaultTimeoutMs };
  const user = readJson(opts.userFile, warnings);
  const projectFile = join(opts.root, ".mcp.json");
  const project = readJson(projectFile, warnings);
  const a = parseMcpServers(user?.mcpServers, { ...base, source: "user", file: opts.userFile });
  const b = parseMcpServers(project?.mcpServers, { ...base, source: "project", file: projectFile });
  const servers: McpServerDef[] = [];
  for (const s of [...a.servers, ...b.servers]) {
    const why = nameClash(s, servers);
    if (why) warnings.push(`${s.file}: MCP server "${s.name}" skipped: ${why}`);
    else servers.push(s.source === "project" && a.grants[s.name] ? { ...s, ...a.grants[s.name] } : s);
  }
  return { servers, warnings: [...warnings, ...a.warnings, ...b.warnings] };
}

/** Why a server cannot take its name beside those already kept, or null. */
function nameClash(s: McpServerDef, kept: McpServerDef[]): string | null {
  const key = sanitize(s.name);
  if (key.includes("__")) return `its tools would be named mcp__${key}__…, which reads as another server's; use a name without "__"`;
  const other = kept.find((k) => sanitize(k.name) === key);
  if (!other) return null;
  const mine = other.source === "user" ? "your settings.json defines" : "this file already defines";
  return other.name === s.name
    ? `${mine} a server of that name`
    : `${mine} "${other.name}", whose tools the model sees under the same name (mcp__${key}__…)`;
}

/** A relative program or argument that names a file, as an absolute path (for the sandbox's read-only view). */
export function absoluteIn(root: string, path: string): string {
  return isAbsolute(path) ? path : resolve(root, path);
}
