// When a sandboxed command fails on a path, one line that says what the
// sandbox shows and which flag shows more: the model can then ask the person
// instead of retrying, and the person knows what to pass.
import { isAbsolute, resolve } from "node:path";
import { sandboxMounts, shownAs, type Mount, type SandboxSpec } from "./spec.ts";

/** What a command sees, in one phrase. */
export function describeView(spec: SandboxSpec): string {
  const ws = spec.workspaceReadOnly
    ? "the workspace (read-only, as this command only reads)"
    : `the workspace (read-write; ${spec.gitWritable ? ".bunker" : ".git and .bunker"} read-only)`;
  return `${ws}, the system and toolchain directories and git's config (read-only), what the person granted (--allow-read, --allow-write), a private empty home and a private /tmp; nothing else of this machine`;
}

/** A failure that names a path: where the path is, as the program printed it. */
const FAILURE = /No such file or directory|Permission denied|Operation not permitted|cannot access|cannot open|not found/;
const PATH_WORD = /(?:^|[\s'"`:(=])((?:\/|\.\.\/|~\/)[^\s'"`:),]*)/g;

/**
 * The one-line note for the first path the output says could not be reached
 * that the sandbox does not show (or hides, or replaces with a private
 * empty directory), or null.
 */
export function pathNote(output: string, spec: SandboxSpec, home: string = spec.home ?? "", mounts: Mount[] = sandboxMounts(spec)): string | null {
  for (const line of output.split("\n")) {
    if (!FAILURE.test(line)) continue;
    for (const m of line.matchAll(PATH_WORD)) {
      const word = m[1]!.replace(/[.;]+$/, "");
      const abs = word.startsWith("~/") ? (home ? `${home}/${word.slice(2)}` : null) : isAbsolute(word) ? word : resolve(spec.root, word);
      if (!abs) continue;
      const seen = shownAs(mounts, abs);
      const grant = `the person can show it with --allow-read=${abs} (read-only) or --allow-write=${abs}`;
      const view = `The sandbox shows commands ${describeView(spec)}.`;
      if (seen === "absent") return `${view} ${abs} is not among them: ${grant}. Do not retry; ask the person.`;
      if (seen === "hidden") return `${view} ${abs} is hidden in it (it holds credentials, or reads there are denied): only a grant naming it shows it (--allow-read=${abs}). Do not retry; ask the person.`;
      if (seen === "private") {
        const where = abs === "/tmp" || abs.startsWith("/tmp/") || abs.startsWith("/var/tmp/") ? "/tmp is private: files in the machine's /tmp are not visible inside it. Work with files in the workspace instead" : `${abs} is in the private empty home, not the machine's: ${grant}`;
        return `${view} ${where}.`;
      }
    }
  }
  return null;
}
