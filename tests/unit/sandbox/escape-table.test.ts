// The escape table, run for real in bubblewrap with the judge out of the way
// (a bare --allow-run and writes granted in the workspace: every command is
// allowed, so only the sandbox stands between it and the machine). Each row
// tries to read a secret out or write a byte in: none may. The fixture
// lives where no sandbox looks (/dev/shm), so a row cannot pass merely
// because /tmp is private.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { createRunBashTool } from "../../../src/tools/run-bash.ts";
import type { ToolOutput } from "../../../src/tools/tool.ts";
import { makeContext } from "../../support/context.ts";
import { ESCAPE_ATTEMPTS, makeEscapeFixture, SECRET, type EscapeFixture } from "../../support/escape-table.ts";

const usable = detectSandbox().kind === "bubblewrap";
const git = (cwd: string, ...args: string[]) => Bun.spawnSync(["git", ...args], { cwd, stdout: "ignore", stderr: "ignore" }).exitCode;

let f: EscapeFixture;
let home: string;
let env: Record<string, string>;
/** Credential stores of a (fake) home and of the variables that move them: each holds SECRET. */
const stores: Record<string, string> = {};
/** This process's own environment as the kernel shows it (what /proc/<bunker>/environ would give away). */
const ownEnviron = readFileSync("/proc/self/environ", "utf8").split("\0").find((v) => v.startsWith("PATH=")) ?? "PATH=";
/** The first line of the machine's /etc/shadow, when this test can read it (as root): no row may show it. */
const shadowLine = (() => {
  try {
    return readFileSync("/etc/shadow", "utf8").split("\n")[0] || null;
  } catch {
    return null;
  }
})();

beforeAll(() => {
  f = makeEscapeFixture({ unseen: true });
  home = join(f.base, "home");
  const xdg = join(f.base, "xdg");
  const moved = join(f.base, "moved");
  const files: Record<string, string> = {
    "~/.ssh/id_ed25519": "", "~/.aws/credentials": "", "~/.config/git/credentials": "", "~/.git-credentials": "", "~/.netrc": "",
    "~/.config/gh/hosts.yml": "", "~/.config/gcloud/credentials.db": "", "~/.claude/.credentials.json": "", "~/.docker/config.json": "",
    "~/.kube/config": "", "~/.npmrc": "", "~/.bash_history": "", "~/.gnupg/private-keys-v1.d/k.key": "", "~/notes/private.txt": "",
    "xdg/gh/hosts.yml": "", "xdg/gcloud/application_default_credentials.json": "", "xdg/git/credentials": "",
    "moved/gnupg/secring.gpg": "", "moved/docker/config.json": "", "moved/kubeconfig": "", "moved/aws-credentials": "",
    "otherhome/u2/.ssh/id_rsa": "", "otherhome/u2/project/.env": "",
  };
  for (const rel of Object.keys(files)) {
    const abs = rel.startsWith("~/") ? join(home, rel.slice(2)) : join(f.base, rel);
    mkdirSync(join(abs, ".."), { recursive: true });
    writeFileSync(abs, `${SECRET} ${rel}\n`);
    stores[rel] = abs;
  }
  writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = Shown\n");
  env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, XDG_CONFIG_HOME: xdg,
    GNUPGHOME: join(moved, "gnupg"), DOCKER_CONFIG: join(moved, "docker"), KUBECONFIG: join(moved, "kubeconfig"),
    AWS_SHARED_CREDENTIALS_FILE: join(moved, "aws-credentials"),
  };
  // Repositories: the top one, a nested one, and a hooks folder named by config.
  expect(git(f.root, "init", "-q", ".")).toBe(0);
  expect(git(f.root, "init", "-q", "nested")).toBe(0);
  mkdirSync(join(f.root, ".githooks"));
  expect(git(f.root, "config", "core.hooksPath", ".githooks")).toBe(0);
});
afterAll(() => f.cleanup());

async function sandboxed(command: string, root = f.root): Promise<string> {
  const grants = emptyGrants();
  grants.allow.run.all = true; // the judge allows everything: the sandbox alone holds
  grants.allow.write.workspace = true;
  const ctx = makeContext(root, { grants });
  const tool = createRunBashTool({ sandbox: "on", allowNet: false, allowEnv: [], gitWritable: false, grants, env, home, killGraceMs: 300 });
  const r = (await tool.run({ command }, ctx)) as Exclude<ToolOutput, string>;
  return r.content;
}

/** Everything outside the workspace, and the protected files inside it, as they are now. */
function outsideAndProtected(): Map<string, string> {
  const snap = f.snapshot();
  for (const p of [".git/config", ".git/hooks", "nested/.git/config", "nested/.git/hooks", ".githooks", ".bunker"]) {
    const abs = join(f.root, p);
    snap.set(abs, existsSync(abs) ? (lstatSync(abs).isDirectory() ? `dir ${JSON.stringify(Bun.spawnSync(["ls", "-A", abs]).stdout.toString())}` : readFileSync(abs, "utf8")) : "absent");
  }
  return snap;
}

type Row = { name: string; command: () => string };
const rows: Row[] = [];
const read = (name: string, path: () => string) => rows.push({ name: `read ${name}`, command: () => `cat -- '${path()}'; ls -la -- '${path()}'` });
const write = (name: string, path: () => string) => rows.push({ name: `write ${name}`, command: () => `echo pwned > '${path()}'; echo pwned >> '${path()}'; mkdir -p '${path()}.d'` });

// 1. The resolver's family, through the kernel this time: link/.., link/link/../.., link to /, sibling, dangling, sub/.
// (/etc/passwd, which the rows naming real files use, is one of the system files commands may read: /etc/shadow instead.)
for (const row of ESCAPE_ATTEMPTS) {
  if (!row.expect.source.includes("outside")) continue;
  if (row.realFile) {
    if (row.name.includes("passwd") || row.name.includes("link to /")) read(`${row.name}, for /etc/shadow`, () => row.path(f).replace("etc/passwd", "etc/shadow"));
    continue;
  }
  read(row.name, () => row.path(f));
  write(row.name, () => row.path(f));
}
// 2. Credential stores: under the home, under XDG_CONFIG_HOME, where variables move them; other homes.
for (const rel of ["~/.ssh/id_ed25519", "~/.aws/credentials", "~/.config/git/credentials", "~/.git-credentials", "~/.netrc", "~/.config/gh/hosts.yml",
  "~/.config/gcloud/credentials.db", "~/.claude/.credentials.json", "~/.docker/config.json", "~/.kube/config", "~/.npmrc", "~/.bash_history",
  "~/.gnupg/private-keys-v1.d/k.key", "~/notes/private.txt", "xdg/gh/hosts.yml", "xdg/gcloud/application_default_credentials.json",
  "xdg/git/credentials", "moved/gnupg/secring.gpg", "moved/docker/config.json", "moved/kubeconfig", "moved/aws-credentials",
  "otherhome/u2/.ssh/id_rsa", "otherhome/u2/project/.env"]) {
  read(rel, () => stores[rel]!);
}
write("into the home's .ssh (lands in the private home, not the real one)", () => join(home, ".ssh", "authorized_keys"));
write("the home's .bashrc", () => join(home, ".bashrc"));
write("another user's home", () => join(f.base, "otherhome/u2/.bashrc"));
// 3. The machine: /etc's secrets, other homes, bunker's own process.
for (const p of ["/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssl/private", "/root/.bashrc", "/root/.ssh", "/home", "/srv", "/mnt", "/media", "/var/log", "/sys/class/dmi/id/product_serial"]) {
  read(p, () => p);
}
rows.push({ name: "read /proc/<bunker's pid>/environ", command: () => `cat /proc/${process.pid}/environ; cat /proc/${process.ppid}/environ; cat /proc/1/environ | tr '\\0' '\\n' | grep -c PATH=` });
for (const p of ["/etc/bunker-escape", "/usr/bunker-escape", "/opt/bunker-escape"]) write(p, () => p);
// 4. Repositories: the top .git, a nested one, the hooks folder a config names, bunker's settings.
for (const p of [".git/hooks/pre-commit", ".git/config", "nested/.git/hooks/pre-commit", "nested/.git/config", ".githooks/pre-commit", ".bunker/settings.json"]) {
  write(p, () => join(f.root, p));
}
rows.push({ name: "git -C nested config core.fsmonitor", command: () => "git -C nested config core.fsmonitor 'touch /tmp/x'" });
rows.push({ name: "git config core.hooksPath at the top", command: () => "git config core.hooksPath evil-hooks" });
rows.push({ name: "replace nested/.git with a planted one", command: () => "rm -rf nested/.git; mv nested/.git nested/.git-old; mkdir -p nested/.git/hooks" });
rows.push({ name: "git config --global (the private home's, gone after)", command: () => `git config --global core.fsmonitor evil; cat ${home}/.gitconfig` });

describe.skipIf(!usable)("the escape table, in bubblewrap, with the judge allowing everything", () => {
  test(`at least 80 rows (${rows.length})`, () => {
    expect(rows.length).toBeGreaterThanOrEqual(80);
  });
  for (const row of rows) {
    test(row.name, async () => {
      const before = outsideAndProtected();
      const out = await sandboxed(row.command());
      expect(out).not.toContain(SECRET);
      if (shadowLine) expect(out).not.toContain(shadowLine);
      expect(out).not.toContain(ownEnviron);
      expect(outsideAndProtected()).toEqual(before);
    });
  }
  test("the home's git config is shown (read-only), nothing else of the home", async () => {
    expect(await sandboxed(`ls -A ${home}; cat ${home}/.gitconfig`)).toBe("exit code 0\n\n.gitconfig\n[user]\n\tname = Shown");
  });
  test("a repository a command creates is disarmed: the person's next git runs nothing it planted", async () => {
    const out = await sandboxed("git init -q made && echo 'touch /tmp/planted' > made/.git/hooks/post-checkout && chmod +x made/.git/hooks/post-checkout && git -C made config core.fsmonitor 'touch /tmp/planted'");
    expect(out).toContain("note: bunker disarmed the git repository the command created at made/.git (hooks renamed to NAME.bunker-disarmed: post-checkout; core.fsmonitor commented out in config)");
    expect(existsSync(join(f.root, "made/.git/hooks/post-checkout"))).toBe(false);
    expect(Bun.spawnSync(["git", "-C", join(f.root, "made"), "config", "core.fsmonitor"]).stdout.toString()).toBe("");
  });
  test("git init in a workspace without .git fails (a read-only stand-in), and leaves nothing behind", async () => {
    const fresh = join(f.base, "fresh");
    mkdirSync(fresh);
    const out = await sandboxed("git init -q . && echo evil > .git/hooks/pre-commit", fresh);
    expect(out).toContain("Read-only file system");
    expect(existsSync(join(fresh, ".git"))).toBe(false);
  });
});
