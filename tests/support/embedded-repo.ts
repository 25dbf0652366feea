// A workspace that is a git repository holding an embedded repository (a
// gitlink) whose own .git/config defines a clean filter that runs a program:
// a plain `git status` in the outer repository runs it (git looks inside the
// embedded one, under its config). Built with the real git, isolated from the
// person's config.
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir, unseenDir } from "./context.ts";

/** Environment for git that reads no user or system config. */
export function isolatedGitEnv(home: string): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };
}

export function git(cwd: string, env: Record<string, string>, ...args: string[]): string {
  const r = Bun.spawnSync(["git", ...args], { cwd, env, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

export interface EmbeddedRepo {
  root: string;
  /** The file the filter creates when it runs. */
  marker: string;
  env: Record<string, string>;
}

/**
 * `root` (a repository) with `vendor/lib` (a gitlink) whose filter touches `marker`; `vendor/lib/a.txt` is
 * modified, so git runs the filter. Modified in a way git can only tell by reading the file through the
 * filter: the same size, another mtime. (A change of size git sees from stat alone; then the filter ran only
 * when the files had been written in the same second as the index, and the control test failed when a
 * second boundary fell between them.)
 */
export function makeEmbeddedRepo(opts: { filter?: boolean; indexVersion?: number; root?: string } = {}): EmbeddedRepo {
  const base = tempDir("bunker-embedded-");
  const root = opts.root ?? join(base, "ws");
  const marker = join(base, "PWNED");
  mkdirSync(join(base, "home"), { recursive: true });
  const env = isolatedGitEnv(join(base, "home"));
  mkdirSync(join(root, "vendor", "lib"), { recursive: true });
  git(root, env, "init", "-q");
  const lib = join(root, "vendor", "lib");
  git(lib, env, "init", "-q");
  writeFileSync(join(lib, "a.txt"), "a\n");
  writeFileSync(join(lib, ".gitattributes"), "* filter=x\n");
  git(lib, env, "add", ".");
  git(lib, env, "commit", "-qm", "inner");
  if (opts.filter !== false) git(lib, env, "config", "filter.x.clean", `sh -c 'touch ${marker}; cat'`);
  git(root, env, "add", "vendor/lib");
  if (opts.indexVersion) git(root, env, "update-index", "--index-version", String(opts.indexVersion));
  writeFileSync(join(lib, "a.txt"), "b\n");
  utimesSync(join(lib, "a.txt"), 1_000_000_000, 1_000_000_000);
  return { root, marker, env };
}

/**
 * A new repository at `base/ws` whose first commit ("init") holds `files`, made with the person's git isolated
 * from their config (its home `base/home`), in a folder no sandbox shows. `g` runs git there; the caller removes `base`.
 */
export function newRepository(prefix: string, files: Record<string, string>): { base: string; root: string; g: (...args: string[]) => string } {
  const base = unseenDir(prefix);
  const root = join(base, "ws");
  mkdirSync(join(base, "home"));
  mkdirSync(root);
  const g = (...args: string[]) => git(root, isolatedGitEnv(join(base, "home")), ...args);
  g("init", "-q", "-b", "main");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  g("add", ".");
  g("commit", "-qm", "init");
  return { base, root, g };
}
