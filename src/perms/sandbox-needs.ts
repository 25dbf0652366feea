// What the sandbox would keep from a command line the person is about to approve (new user's N12-09, N12-15): a path
// outside the workspace it names that the sandbox does not show, and git history it writes while the workspace's .git
// is read-only there. Said in the question and offered as a grant (this once, or for the session), so that a yes is a
// yes to what the line needs, not an approval of a run bound to fail. Not a boundary: the sandbox is the wall, and what
// it is given here is exactly what the person saw named (deny rules still win: only a read the policy would ask about
// is offered, and the sandbox hides what a deny-read rule covers inside a shown folder).
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { homedir } from "../fs/home.ts";
import { isLiteral, parseShell, type ParseResult, type Word } from "../shell/parse.ts";
import { hostView } from "../sandbox/spec.ts";
import { grantedReadPaths } from "../sandbox/denied-files.ts";
import type { Policy, SandboxNeeds } from "./policy.ts";
import { absolutize, isWithin, realpathLoose } from "./workspace.ts";

/** git subcommands that write the repository's .git (its index, refs, objects or logs). */
const GIT_WRITES = new Set([
  "add", "am", "apply", "branch", "checkout", "cherry-pick", "clean", "commit", "fetch", "gc", "merge", "mv", "notes", "pull",
  "rebase", "reset", "restore", "revert", "rm", "stash", "switch", "tag", "worktree",
]);
/** git options that take the next word as their value. */
const GIT_VALUE_OPTIONS = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"]);
/** At most this many paths are named and offered: a longer list is not read by anyone. */
const MAX_READS = 4;

/** `parsed`: the line as the judge parsed it (one parse per call); parsed here when not given. */
export function sandboxNeeds(command: string, root: string, policy: Policy, parsed: ParseResult = parseShell(command)): SandboxNeeds {
  const candidates = new Set<string>();
  let gitWrite = false;
  for (const cmd of parsed.commands) {
    const words: Word[] = [...cmd.argv.slice(1), ...cmd.redirects.flatMap((r) => (r.target && !r.writes ? [r.target] : []))];
    for (const w of words) {
      const text = valueOf(w);
      if (text !== null) candidates.add(text);
    }
    if (cmd.argv[0]?.text === "git" && writesGit(cmd.argv.slice(1))) gitWrite = true;
  }
  const grants = policy.grants;
  const gitDir = join(root, ".git");
  const gitGranted = grants.allow.write.paths.includes(gitDir) || grants.deny.write.paths.some((p) => isWithin(p, gitDir));
  const reads: string[] = [];
  let shown: string[] | undefined;
  for (const text of candidates) {
    const { real, exists } = realpathLoose(absolutize(root, text));
    if (!exists || isWithin(root, real) || reads.some((r) => isWithin(r, real))) continue;
    // Only what the person could be asked about: a deny rule or a credential store keeps it refused.
    if (policy.decide("read", real).verdict !== "ask") continue;
    shown ??= visibleRoots(root, policy);
    if (shown.some((s) => isWithin(s, real))) continue;
    reads.push(real);
    if (reads.length >= MAX_READS) break;
  }
  return { reads, gitWrite: gitWrite && !gitGranted && existsSync(gitDir) };
}

/** A literal word (or an option's `=value`) that names a path outside the workspace: absolute, `~/…` or `../…`. */
function valueOf(w: Word): string | null {
  if (!isLiteral(w) && !(w.tilde && !w.expanded && !w.glob && !w.brace)) return null;
  let t = w.text;
  const eq = t.startsWith("-") ? t.indexOf("=") : -1;
  if (eq >= 0) t = t.slice(eq + 1);
  else if (t.startsWith("-")) return null;
  return t.startsWith("/") || t.startsWith("~/") || t === ".." || t.startsWith("../") ? t : null;
}

function writesGit(args: Word[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!.text;
    if (GIT_VALUE_OPTIONS.has(t)) {
      i++;
      continue;
    }
    if (t.startsWith("-")) continue;
    // `git branch` / `git tag` alone only list (`git stash` alone stashes).
    if ((t === "branch" || t === "tag" || t === "worktree" || t === "notes") && args.length === i + 1) return false;
    if (t === "stash" && args[i + 1]?.text === "list") return false;
    return GIT_WRITES.has(t);
  }
  return false;
}

/** What a sandboxed command sees of the machine already: the workspace, the system and toolchain folders, the grants. */
function visibleRoots(root: string, policy: Policy): string[] {
  const host = hostView(root, process.env, process.env.HOME || homedir());
  return [root, ...(host.system ?? []), ...(host.toolchains ?? []), ...grantedReadPaths(policy.grants), ...policy.grants.allow.write.paths];
}

/**
 * The folder "allow reading … for this session" grants for a read outside the workspace: the folder read, or the
 * file's folder; none (the file alone) when that folder is too wide to grant in one keypress: the root of the file
 * system, the home folder or one holding it, or one holding the workspace.
 */
export function readFolder(target: string, root: string): string | undefined {
  let folder: string;
  try {
    folder = statSync(target).isDirectory() ? target : dirname(target);
  } catch {
    return undefined;
  }
  const home = realpathLoose(process.env.HOME || homedir()).real;
  if (folder === "/" || isWithin(folder, home) || isWithin(folder, root)) return undefined;
  return folder;
}

/** Whether `path` is a folder (a listing or search of it, not one file). */
export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
