import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { bubblewrapArgs } from "../../../src/sandbox/bubblewrap.ts";
import { checkerInvocation } from "../../../src/sandbox/mount-check.ts";
import { prlimitProgram } from "../../../src/sandbox/process-limits.ts";
import { detectSandbox, locateProgram, parseSandboxMode, planSandbox, sandboxStartupNotice } from "../../../src/sandbox/detect.ts";
import { scrubEnv } from "../../../src/sandbox/env.ts";
import { stateDirView } from "../../../src/sandbox/state-dir.ts";
import { sbplString, seatbeltProfile } from "../../../src/sandbox/seatbelt.ts";
import { enclosingGitDirs, etcSecrets, grantedReadPaths, linkedGitDirs, sandboxMounts, secretPaths, shownAs, toolchainDirs, type HostFs, type SandboxSpec } from "../../../src/sandbox/spec.ts";
import { parseConfig } from "../../../src/config.ts";
import { commandSandboxSpec, createRunBashTool, runBashOptions, sandboxNote, type RunBashOptions } from "../../../src/tools/run-bash.ts";
import type { ToolOutput } from "../../../src/tools/tool.ts";
import { makeContext, tempDir, unseenDir } from "../../support/context.ts";
import { until } from "../../support/wait.ts";

const spec = (over: Partial<SandboxSpec> = {}): SandboxSpec => ({ root: "/work/proj", allowNet: false, gitWritable: false, writable: [], system: ["/usr", "/bin", "/etc"], ...over });

/** A made-up machine: /bin a link, a home with a toolchain and credential stores, a project with .git. */
const fakeHost: HostFs = {
  kind: (p) =>
    ({
      "/usr": "dir", "/bin": "link", "/etc": "dir", "/etc/shadow": "file", "/etc/ssl/private": "dir", "/work/proj": "dir",
      "/work/proj/.git": "dir", "/home/u/.ssh": "dir", "/home/u/.netrc": "file", "/home/u/.cargo": "dir",
      "/home/u/.cargo/credentials.toml": "file", "/home/u/.gitconfig": "file", "/data": "dir", "/data/.kube": "dir",
    } as Record<string, "dir" | "file" | "link">)[p] ?? null,
  readlink: () => "usr/bin",
};
const hidden = ["/etc/shadow", "/etc/ssl/private", "/home/u/.ssh", "/home/u/.netrc", "/home/u/.cargo/credentials.toml", "/data/.kube"];

describe("bubblewrap arguments: an allow-list", () => {
  test("system directories read-only (links kept as links), private /tmp, /run and home, the workspace, no net", () => {
    const args = bubblewrapArgs(spec({ home: "/home/u", hidden, memoryBytes: 16 * 1024 ** 3, limits: { processes: 100, dataBytes: 1000 } }), ["bash", "-c", "ls"], "/usr/bin/bwrap", fakeHost).join(" ");
    // The command starts under its process and memory limits (process-limits.ts), where prlimit is installed.
    const limited = prlimitProgram() ? `${prlimitProgram()} --nproc=100:100 --data=1000:1000 -- ` : "";
    // The workspace's read-only .git and .bunker are checked from inside before the command (mount-check.ts): the
    // checker's own files and its list are shown read-only, and it starts the command.
    const checker = checkerInvocation("/run/bunker-mount-check.json");
    const list = /--ro-bind (\/\S+\.json) \/run\/bunker-mount-check\.json /.exec(args)?.[1] ?? "";
    expect(JSON.parse(readFileSync(list, "utf8"))).toEqual([{ path: "/work/proj/.git", id: null }, { path: "/work/proj/.bunker", id: null }]);
    let rest = args.replace(`--ro-bind ${list} /run/bunker-mount-check.json `, "");
    for (const p of checker.paths) rest = rest.replace(`--ro-bind ${p} ${p} `, "");
    expect(rest).toBe(
      // Every writable in-memory folder sized (tmpfs-sizes.ts: 16 GiB of memory here); /dev and bwrap's own root read-only.
      "/usr/bin/bwrap --dev /dev --size 858783744 --tmpfs /dev/shm --remount-ro /dev --proc /proc --ro-bind /usr /usr --symlink usr/bin /bin --ro-bind /etc /etc " +
        "--size 3435134976 --tmpfs /tmp --size 16777216 --tmpfs /run --size 858783744 --tmpfs /var/tmp --size 3435134976 --tmpfs /home/u --bind /work/proj /work/proj --dev-bind /dev/null /etc/shadow " +
        "--ro-bind /work/proj/.git /work/proj/.git --tmpfs /work/proj/.bunker --remount-ro /work/proj/.bunker " +
        "--tmpfs /etc/ssl/private --remount-ro /etc/ssl/private " +
        `--remount-ro / --unshare-all --die-with-parent --new-session --cap-drop ALL --chdir /work/proj -- ${checker.argv.join(" ")} ${limited}bash -c ls`,
    );
    // Credential stores in the home need no hiding: the home is empty.
    expect(args).not.toContain(".ssh");
    expect(args).not.toContain(".netrc");
  });
  test("toolchains and git config read-only on the private home; a credential file inside a toolchain tree is hidden", () => {
    const args = bubblewrapArgs(spec({ home: "/home/u", hidden, toolchains: ["/home/u/.cargo"], gitConfig: ["/home/u/.gitconfig", "/home/u/.config/git/config"] }), ["true"], "bwrap", fakeHost).join(" ");
    expect(args).toContain("--tmpfs /home/u --bind /work/proj /work/proj --dev-bind /dev/null /etc/shadow --ro-bind /home/u/.cargo /home/u/.cargo --ro-bind /home/u/.gitconfig /home/u/.gitconfig");
    expect(args).toContain("--dev-bind /dev/null /home/u/.cargo/credentials.toml");
    expect(args).not.toContain(".config/git"); // missing: not mounted
  });
  test("granted reads read-only, granted writes read-write, credential stores inside them hidden, unless the grant names them", () => {
    const g = bubblewrapArgs(spec({ readable: ["/data"], hidden }), ["true"], "bwrap", fakeHost).join(" ");
    expect(g).toContain("--ro-bind /data /data");
    expect(g).toContain("--tmpfs /data/.kube --remount-ro /data/.kube");
    expect(bubblewrapArgs(spec({ writable: ["/data"], hidden }), ["true"], "bwrap", fakeHost).join(" ")).toContain("--bind /data /data");
    expect(bubblewrapArgs(spec({ readable: ["/data/.kube"], hidden }), ["true"], "bwrap", fakeHost).join(" ")).not.toContain("--tmpfs /data/.kube");
  });
  test("network, a writable .git and extra writable paths when granted", () => {
    const args = bubblewrapArgs(spec({ allowNet: true, gitWritable: true, writable: ["/data"] }), ["true"], "bwrap", fakeHost);
    expect(args).toContain("--share-net");
    expect(args.join(" ")).toContain("--bind /data /data");
    expect(args.join(" ")).not.toContain("/work/proj/.git");
  });
  test("a grant of / comes before bwrap's own /dev and /proc, and is not made read-only at the end (bwrap's own root is)", () => {
    const args = bubblewrapArgs(spec({ readable: ["/"], memoryBytes: 20 * 1024 ** 2 }), ["true"], "bwrap", { kind: (p) => (p === "/" ? "dir" : fakeHost.kind(p)), readlink: fakeHost.readlink });
    expect(args.slice(0, 17).join(" ")).toBe("bwrap --ro-bind / / --dev /dev --size 1048576 --tmpfs /dev/shm --remount-ro /dev --proc /proc --ro-bind /usr /usr");
    expect(args.join(" ")).not.toContain("--remount-ro / ");
  });
  test("a worktree's repository (outside the workspace) is found for git to work there", () => {
    const files: Record<string, string> = {
      "/w/.git": "gitdir: /main/.git/worktrees/w\n",
      "/main/.git/worktrees/w/commondir": "../..\n",
    };
    expect(linkedGitDirs("/w", (p) => files[p] ?? null)).toEqual(["/main/.git/worktrees/w", "/main/.git"]);
    expect(linkedGitDirs("/plain", () => null)).toEqual([]);
  });
  test("secretPaths: the home's stores, the same under XDG_CONFIG_HOME, and those moved by variables; never the workspace or a parent of it", () => {
    const env = { XDG_CONFIG_HOME: "/cfg", GNUPGHOME: "/keys/gpg", KUBECONFIG: "/k/a:/k/b", AWS_SHARED_CREDENTIALS_FILE: "/aws/creds", DOCKER_CONFIG: "/d" };
    const paths = secretPaths("/home/u", "/work/proj", env);
    for (const p of ["/home/u/.ssh", "/home/u/.config/git/credentials", "/cfg/gh", "/cfg/gcloud", "/home/u/.claude/.credentials.json", "/keys/gpg", "/k/a", "/k/b", "/aws/creds", "/d"]) {
      expect(paths).toContain(p);
    }
    expect(secretPaths("/home/u", "/home/u/.ssh/proj")).not.toContain("/home/u/.ssh");
    expect(secretPaths("/home/u", "/home/u/.aws")).not.toContain("/home/u/.aws");
  });
  test("secretPaths: every Node version's global npmrc in the version managers' trees, and a PATH prefix's etc/npmrc", () => {
    const home = mkdtempSync("/tmp/bunker-npmrc-");
    for (const d of [".nvm/versions/node/v20.11.0", ".nvm/versions/node/v22.1.0", ".local/share/fnm/node-versions/v18.0.0"]) mkdirSync(join(home, d), { recursive: true });
    const paths = secretPaths(home, "/work/proj", { PATH: `${home}/.npm-global/bin:/usr/bin`, NPM_CONFIG_GLOBALCONFIG: "/etc/corp-npmrc" });
    for (const p of [".nvm/versions/node/v20.11.0/etc/npmrc", ".nvm/versions/node/v22.1.0/etc/npmrc", ".local/share/fnm/node-versions/v18.0.0/installation/etc/npmrc", ".npm-global/etc/npmrc"]) {
      expect(paths).toContain(join(home, p));
    }
    expect(paths).toContain("/etc/corp-npmrc");
    rmSync(home, { recursive: true, force: true });
  });
  test("a granted write folder is guarded as the workspace is: its repositories read-only, a missing top .git a read-only stand-in", () => {
    const host: HostFs = { kind: (p) => (["/data", "/data/sub/.git", "/shared"].includes(p) ? "dir" : fakeHost.kind(p)), readlink: fakeHost.readlink };
    const mounts = sandboxMounts(spec({ writable: ["/data", "/shared"], grantedRoots: ["/data", "/shared"], readOnly: ["/data/sub/.git", "/elsewhere/.git"] }), "linux", host);
    expect(shownAs(mounts, "/data/notes.txt")).toBe("rw");
    expect(shownAs(mounts, "/data/sub/.git/hooks/pre-commit")).toBe("ro");
    expect(shownAs(mounts, "/data/.git/hooks/pre-commit")).toBe("ro"); // no .git there: an empty read-only stand-in
    expect(shownAs(mounts, "/shared/.git/config")).toBe("ro");
    expect(mounts).toContainEqual({ kind: "empty", path: "/shared/.git", writable: false });
    // A read-only path outside every writable root is not mounted at all.
    expect(mounts.some((m) => m.path === "/elsewhere/.git")).toBe(false);
    // On macOS the granted folder is writable less its repositories (not merely the workspace less them).
    expect(seatbeltProfile(spec({ writable: ["/data"], grantedRoots: ["/data"], readOnly: ["/data/sub/.git"] }), "/t", host)).toContain('(require-all (subpath "/data") (require-not (subpath "/data/.git")) (require-not (subpath "/data/sub/.git")))');
  });
  test("an MCP server's write folder holding bunker's state folder (~/.local): each folder between is pinned, writable, so it cannot be moved away; the state folder masked but for the server's own", () => {
    const local = "/home/u/.local";
    const state = `${local}/state/bunker`;
    const own = `${state}/mcp/box`;
    const dirs = [local, `${local}/state`, state, own];
    const host: HostFs = { kind: (p) => (dirs.includes(p) ? "dir" : fakeHost.kind(p)), readlink: fakeHost.readlink };
    const view = stateDirView(state, "/work/proj", [local]);
    expect(view).toEqual({ hidden: [state], pinned: [`${local}/state`] });
    const mounts = sandboxMounts(spec({ workspaceReadOnly: true, privateDirs: [own, local], hidden: view.hidden, pinned: view.pinned }), "linux", host);
    expect(mounts).toContainEqual({ kind: "rw", path: `${local}/state` });
    expect(mounts).toContainEqual({ kind: "mask", path: state, dir: true, keeps: [own] });
    expect(shownAs(mounts, `${local}/notes.txt`)).toBe("rw");
    expect(shownAs(mounts, `${state}/sessions.db`)).toBe("hidden");
    // A pin is never made where the workspace is read-only and no private folder holds it.
    const inWorkspace = sandboxMounts(spec({ workspaceReadOnly: true, pinned: ["/work/proj/.local"] }), "linux", { kind: (p) => (p === "/work/proj/.local" ? "dir" : fakeHost.kind(p)), readlink: fakeHost.readlink });
    expect(inWorkspace.some((m) => m.path === "/work/proj/.local")).toBe(false);
  });
  test("a hidden folder with a private folder inside it (bunker's state, an MCP server's own folder): masked, that folder kept on the mask, read-only once it is in", () => {
    const state = "/work/proj/.state/bunker";
    const own = `${state}/mcp/box`;
    const host: HostFs = { kind: (p) => ([state, own].includes(p) ? "dir" : fakeHost.kind(p)), readlink: fakeHost.readlink };
    const s = spec({ workspaceReadOnly: true, privateDirs: [own], hidden: [state] });
    const mounts = sandboxMounts(s, "linux", host);
    expect(mounts).toContainEqual({ kind: "mask", path: state, dir: true, keeps: [own] });
    expect(shownAs(mounts, `${state}/sessions.db`)).toBe("hidden");
    expect(shownAs(mounts, `${own}/note`)).toBe("rw");
    const args = bubblewrapArgs(s, ["true"], "bwrap", host).join(" ");
    // Its mount point is made in the mask before the mask is read-only.
    expect(args).toContain(`--tmpfs ${state} --bind ${own} ${own} `);
    expect(args.indexOf(`--remount-ro ${state}`)).toBeGreaterThan(args.indexOf(`--bind ${own} ${own}`));
    expect(args.indexOf(`--remount-ro ${state}`)).toBeLessThan(args.indexOf("--remount-ro / "));
    expect(seatbeltProfile(s, "/t", host)).toContain(`(require-all (subpath "${state}") (require-not (subpath "${own}")))`);
  });
  test("shownAs says what a command finds at a path", () => {
    const mounts = sandboxMounts(spec({ home: "/home/u", hidden }), "linux", fakeHost);
    expect(shownAs(mounts, "/work/proj/src/a.ts")).toBe("rw");
    expect(shownAs(mounts, "/work/proj/.git/config")).toBe("ro");
    expect(shownAs(mounts, "/usr/bin/env")).toBe("ro");
    expect(shownAs(mounts, "/etc/shadow")).toBe("hidden");
    expect(shownAs(mounts, "/home/u/.ssh/id_rsa")).toBe("private");
    expect(shownAs(mounts, "/srv/data")).toBe("absent");
  });
});

describe("the machine's own view", () => {
  test("toolchainDirs: PATH entries and version managers' trees; never /, the home or above, the workspace or a credential store", () => {
    const home = tempDir("bunker-home-");
    for (const d of [".bun/bin", ".cargo/bin", ".local/bin", "bin", ".ssh", "go/bin", "go/src/proj"]) mkdirSync(`${home}/${d}`, { recursive: true });
    const root = `${home}/go/src/proj`;
    const env = { PATH: `${home}/.bun/bin:${home}/.local/bin:${home}/bin:${home}:/:.::${home}/.ssh:${root}/node_modules/.bin:/usr/bin`, GOPATH: `${home}/go` };
    const dirs = toolchainDirs(env, home, root);
    expect(dirs).toContain(`${home}/.bun`); // the bin's own prefix
    expect(dirs).toContain(`${home}/.cargo`); // a version manager's tree, not on PATH
    expect(dirs).toContain(`${home}/.local/bin`); // but not ~/.local whole
    expect(dirs).toContain(`${home}/bin`);
    expect(dirs).toContain(`${home}/go/bin`); // GOPATH/src holds the workspace and its siblings: not shown
    for (const no of [home, "/", `${home}/.local`, `${home}/.ssh`, `${home}/go`, `${root}/node_modules/.bin`, `${home}/.bun/bin`]) expect(dirs).not.toContain(no);
  });
  test("etcSecrets: the named files and every entry /etc keeps from other users", () => {
    const etc = tempDir("bunker-etc-");
    mkdirSync(`${etc}/ssh`);
    mkdirSync(`${etc}/private`, { mode: 0o700 });
    writeFileSync(`${etc}/shadow`, "x", { mode: 0o644 }); // world-readable in some images: named anyway
    writeFileSync(`${etc}/app.key`, "x", { mode: 0o600 });
    writeFileSync(`${etc}/ssh/ssh_host_ed25519_key`, "x", { mode: 0o644 });
    writeFileSync(`${etc}/ssh/ssh_host_ed25519_key.pub`, "x", { mode: 0o644 });
    writeFileSync(`${etc}/hosts`, "x", { mode: 0o644 });
    chmodSync(`${etc}/private`, 0o700);
    expect(etcSecrets(etc)).toEqual([`${etc}/app.key`, `${etc}/private`, `${etc}/shadow`, `${etc}/ssh/ssh_host_ed25519_key`]);
  });
  test("grantedReadPaths: paths, and a glob rule's fixed part", () => {
    const g = emptyGrants();
    g.allow.read.paths.push("/data");
    g.allow.read.globs.push("/shared/\\[x\\]/**/*.md");
    expect(grantedReadPaths(g)).toEqual(["/data", "/shared/[x]"]);
  });
});

test("a config inside a toolchain tree that holds a credential (cargo's config.toml) is shown as its copy over the tree; on macOS not at all", () => {
  const copies = { "/home/u/.cargo/config.toml": "/tmp/bunker-gitconfig-x/0-c" };
  const mounts = sandboxMounts(spec({ toolchains: ["/home/u/.cargo"], gitConfigCopies: copies }), "linux", fakeHost);
  const tree = mounts.findIndex((m) => m.kind === "ro" && m.path === "/home/u/.cargo");
  const copy = mounts.findIndex((m) => m.kind === "copy" && m.path === "/home/u/.cargo/config.toml" && m.source === copies["/home/u/.cargo/config.toml"]);
  expect(tree).toBeGreaterThanOrEqual(0);
  expect(copy).toBeGreaterThan(tree);
  expect(seatbeltProfile(spec({ toolchains: ["/home/u/.cargo"], gitConfigCopies: copies }), "/t", fakeHost)).toContain('(subpath "/home/u/.cargo/config.toml")');
  // Not a copy for a file no mount shows.
  expect(sandboxMounts(spec({ gitConfigCopies: copies }), "linux", fakeHost).some((m) => m.kind === "copy")).toBe(false);
});

test("a repository's config that holds a credential is shown as its copy in the workspace, read-only or not, and in place of its read-only mount under --allow-write=.git (red team 10's O1)", () => {
  const copies = { "/work/proj/.git/config": "/state/bunker-gitconfig-x/0-c" };
  for (const over of [{}, { workspaceReadOnly: true }, { gitWritable: true, readOnly: ["/work/proj/.git/config"] }]) {
    const mounts = sandboxMounts(spec({ gitConfigCopies: copies, ...over }), "linux", fakeHost);
    const at = mounts.filter((m) => m.path === "/work/proj/.git/config");
    expect(at).toEqual([{ kind: "copy", path: "/work/proj/.git/config", source: "/state/bunker-gitconfig-x/0-c" }]);
    expect(mounts.indexOf(at[0]!)).toBeGreaterThan(mounts.findIndex((m) => m.path === "/work/proj"));
  }
});

describe("seatbelt profile", () => {
  const profile = seatbeltProfile(spec({ hidden }), "/private/var/folders/x/T/bunker-run-1", fakeHost);
  test("denies by default; reads only what bubblewrap would show", () => {
    expect(profile.startsWith("(version 1)\n(deny default)\n")).toBe(true);
    expect(profile).not.toContain("(allow file-read*)\n");
    expect(profile).toContain('(allow file-read*\n  (subpath "/usr")\n  (literal "/bin")\n  (subpath "/etc")\n  (subpath "/work/proj")');
    expect(profile).toContain('(deny file-read* file-write*\n  (subpath "/etc/shadow")\n  (subpath "/etc/ssl/private"))');
    expect(profile).not.toContain("/home/u");
  });
  test("writes only the workspace minus .git and .bunker, the private temp dir and safe devices", () => {
    expect(profile).toContain(
      '(allow file-write*\n  (require-all (subpath "/work/proj") (require-not (subpath "/work/proj/.git")) (require-not (subpath "/work/proj/.bunker")))\n  (subpath "/private/var/folders/x/T/bunker-run-1")',
    );
    expect(profile).toContain('(literal "/dev/null")');
    expect(profile).not.toContain('(subpath "/tmp")');
  });
  test("network only when granted", () => {
    expect(profile).not.toContain("(allow network");
    expect(seatbeltProfile(spec({ allowNet: true }), "/t", fakeHost)).toContain("(allow network*)");
  });
  test("granted reads and toolchains are readable; credential stores inside them are not", () => {
    const p = seatbeltProfile(spec({ toolchains: ["/home/u/.cargo"], readable: ["/data"], hidden }), "/t", fakeHost);
    expect(p).toContain('(subpath "/home/u/.cargo")');
    expect(p).toContain('(subpath "/data")');
    const denied = p.slice(p.indexOf("(deny file-read* file-write*"));
    expect(denied).toContain('(subpath "/home/u/.cargo/credentials.toml")');
    expect(denied).toContain('(subpath "/data/.kube")');
  });
  test("a writable .git drops its exception; quotes in paths are escaped", () => {
    const p = seatbeltProfile(spec({ root: '/Users/a "b"\\c', gitWritable: true }), "/t", { kind: () => "dir", readlink: () => "" });
    expect(p).toContain('(subpath "/Users/a \\"b\\"\\\\c")');
    expect(p).not.toContain(".git");
    expect(sbplString('x"y')).toBe('"x\\"y"');
  });
});

describe("--sandbox auto|on|off", () => {
  const none = { kind: null, reason: "bubblewrap (bwrap) is not installed" } as const;
  const bwrap = { kind: "bubblewrap", program: "/usr/bin/bwrap" } as const;
  test("modes", () => {
    expect(parseSandboxMode("on")).toBe("on");
    expect(() => parseSandboxMode("yes")).toThrow("--sandbox must be auto, on or off");
    expect(planSandbox("auto", bwrap)).toEqual({ confined: true, kind: "bubblewrap", program: "/usr/bin/bwrap" });
    expect(planSandbox("off", bwrap)).toEqual({ confined: false });
    expect(planSandbox("auto", none)).toEqual({ confined: false });
    const on = planSandbox("on", none);
    expect(on.confined).toBe(false);
    expect(!on.confined && on.refuse).toContain("apt-get install bubblewrap");
  });
  test("the start-up notice appears only when commands will run unconfined (or be refused)", () => {
    expect(sandboxStartupNotice("auto", bwrap, "linux")).toBeNull();
    expect(sandboxStartupNotice("off", none, "linux")).toBeNull();
    expect(sandboxStartupNotice("auto", none, "linux")).toBe(
      "No sandbox for commands: bubblewrap (bwrap) is not installed; approved commands will run without OS confinement, and every command asks (even ls). " +
        "To fix it, install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap).",
    );
    expect(sandboxStartupNotice("on", { kind: null, program: "/usr/bin/bwrap", reason: "bwrap cannot create a sandbox here" }, "linux")).toContain(
      "run_bash will refuse to run commands. To fix it, allow unprivileged user namespaces",
    );
  });
  test("scrubEnv drops connection strings, passwords, personal tokens and agent sockets; keeps PWD", () => {
    const env = { DATABASE_URL: "postgres://u:p@h/db", MYSQL_PWD: "p", DB_PASS: "p", GITHUB_PAT: "x", SENTRY_DSN: "x",
      SSH_AUTH_SOCK: "/run/agent", NPM_AUTH: "x", PWD: "/ws", OLDPWD: "/", LANG: "C.UTF-8", PASSENGER_LOG: "kept" };
    expect(scrubEnv(env, ["DB_PASS"])).toEqual({ DB_PASS: "p", PWD: "/ws", OLDPWD: "/", LANG: "C.UTF-8", PASSENGER_LOG: "kept" });
  });

  test("scrubEnv drops values that carry a credential whatever the name: URLs with a password, webhooks, known key shapes", () => {
    const env = {
      REDIS_URL: "redis://:hunter2@cache:6379/0", AMQP_URL: "amqp://guest:guest@mq/", SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/T0/B0/xyz",
      HOOK: "https://discord.com/api/webhooks/123/abcdefghijklmnopqrstuvwxyz", STRIPE_SK: "sk_live_51HxYzAbCdEfGhIjKl", PAYMENTS: "sk_live_51HxYzAbCdEfGhIjKl",
      GH: "ghp_0123456789abcdefghijklmnopqrstuvwxyz", AWS_ID: "AKIAIOSFODNN7EXAMPLE", CERT: "-----BEGIN OPENSSH PRIVATE KEY-----\nabc",
      AI: "sk-ant-api03-abcdefghijklmnopqrstuvwxyz", JWT_ISH: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop",
      // Kept: URLs without a password, ordinary words.
      MIRROR_URL: "https://user@mirror.example/x", HOMEPAGE: "https://example.com/webhooks", EDITOR: "vim", SKIP: "1",
    };
    expect(scrubEnv(env, ["PAYMENTS"])).toEqual({ PAYMENTS: "sk_live_51HxYzAbCdEfGhIjKl", MIRROR_URL: "https://user@mirror.example/x", HOMEPAGE: "https://example.com/webhooks", EDITOR: "vim", SKIP: "1" });
  });
  test("scrubEnv keeps ordinary variables", () => {
    expect(scrubEnv({ HOME: "/h", API_KEY: "k", KEYBOARD_LAYOUT: "us", GH_TOKEN: undefined }, [])).toEqual({ HOME: "/h", KEYBOARD_LAYOUT: "us" });
  });
  test("the note after a blocked command", () => {
    const r = { exitCode: 1, signal: null, timedOutAfterMs: null, interrupted: false, output: "" };
    const s = spec();
    expect(sandboxNote({ ...r, output: "touch: cannot touch '/etc/x': Read-only file system" }, s)).toContain("The sandbox blocked a write");
    expect(sandboxNote({ ...r, output: "curl: (6) Could not resolve host: example.com" }, s)).toContain("--allow-net");
    expect(sandboxNote({ ...r, output: "curl: (6) Could not resolve host: example.com" }, spec({ allowNet: true }))).toBeNull();
    expect(sandboxNote({ ...r, output: "cat: /root/.ssh/id_rsa: Permission denied" }, s)).toContain("/root/.ssh/id_rsa");
    expect(sandboxNote({ ...r, output: "cat: /work/proj/x: Permission denied" }, s)).toBeNull();
    expect(sandboxNote({ ...r, exitCode: 0, output: "Read-only file system" }, s)).toBeNull();
    // A pipeline that exits 0 (`ls /x | head`): a path the sandbox does not show is still said to be hidden, not missing (N12-09).
    expect(sandboxNote({ ...r, exitCode: 0, output: "ls: cannot access '/srv/elsewhere/bunker': No such file or directory" }, s)).toContain("/srv/elsewhere/bunker is not among them");
    expect(sandboxNote({ ...r, exitCode: 0, output: "ls: cannot access '/work/proj/nope': No such file or directory" }, s)).toBeNull();
    // The private /tmp and home: the command's own, no note when it succeeded.
    expect(sandboxNote({ ...r, exitCode: 0, output: "cat: /tmp/x: No such file or directory\ncat: /home/me/.npmrc: No such file or directory" }, spec({ home: "/home/me" }))).toBeNull();
  });
});

describe("flags → run_bash sandbox settings", () => {
  const ws = tempDir("bunker-flags-");
  afterAll(() => rmSync(ws, { recursive: true, force: true }));
  const options = (...flags: string[]) => runBashOptions(parseConfig(["-C", ws, ...flags], { ANTHROPIC_API_KEY: "k" }, false).config!);
  test("defaults: no network, .git read-only, nothing extra", () => {
    const { grants, sessionsDir, keptCachesKey, ...rest } = options();
    expect(rest).toEqual({ sandbox: "auto", allowNet: false, allowEnv: [], gitWritable: false, writable: [], readOnly: [] });
    // The sandbox's home is kept for the workspace's next commands under the same grants, unless the run keeps nothing.
    expect(keptCachesKey).toBe(options().keptCachesKey!);
    expect(options("--allow-net").keptCachesKey).not.toBe(keptCachesKey);
    expect(options("--allow-env=DEPLOY_TOKEN").keptCachesKey).not.toBe(keptCachesKey);
    expect(options("--allow-read=/etc/hosts").keptCachesKey).not.toBe(keptCachesKey);
    expect(options("--no-session-persistence").keptCachesKey).toBeUndefined();
    // The session store's folder, to hide from commands.
    expect(sessionsDir).toMatch(/\/bunker$/);
    expect(grants).toEqual(emptyGrants());
  });
  test("bare --allow-net opens the network; a host list cannot be enforced by the sandbox, so it does not", () => {
    expect(options("--allow-net").allowNet).toBe(true);
    expect(options("--allow-net=registry.npmjs.org").allowNet).toBe(false);
    expect(options("--allow-net", "--deny-net").allowNet).toBe(false);
  });
  test("a deny-read rule: each command asks the session's look at git history which object stores to hide, never the servers' snapshot (R11-10)", () => {
    const parsed = parseConfig(["-C", ws, "--deny-read=.env"], { ANTHROPIC_API_KEY: "k" }, false).config!;
    // What MCP servers were started with, before the walk had ended: not every command's for the rest of the session.
    parsed.hiddenGitObjects = [`${ws}/.git/objects`];
    const o = runBashOptions(parsed);
    expect(o.hiddenGitObjects).toBeUndefined();
    expect(o.deniedHistory?.stateDir).toMatch(/\/bunker$/);
    expect(options().deniedHistory).toBeUndefined();
  });
  test(".git only when named; granted outside paths writable; denied inside paths read-only", () => {
    expect(options("--allow-write").gitWritable).toBe(false);
    expect(options("--allow-write=.").gitWritable).toBe(false);
    expect(options("--allow-write=.git").gitWritable).toBe(true);
    const o = options("--allow-write=/var/tmp/out,src", "--deny-write=secrets", "--allow-env=NPM_TOKEN", "--sandbox", "on");
    expect(o.writable).toEqual(["/var/tmp/out"]);
    expect(o.readOnly).toEqual([`${ws}/secrets`]);
    expect(o.allowEnv).toEqual(["NPM_TOKEN"]);
    expect(o.sandbox).toBe("on");
  });
});

test.skipIf(!existsSync("/usr/bin/bwrap"))("bubblewrap is found in /usr/bin when PATH is empty or lacks it", () => {
  expect(locateProgram("bwrap", "")).toBe("/usr/bin/bwrap");
  expect(locateProgram("bwrap", "/nonexistent")).toBe("/usr/bin/bwrap");
  expect(locateProgram("no-such-program-bunker", "")).toBeNull();
});

// ---- the real thing -----------------------------------------------------------

const avail = detectSandbox();
const usable = avail.kind === "bubblewrap";
const skipReason = usable ? "" : ` (SKIPPED: ${avail.reason ?? "not Linux"}; CI must install bubblewrap: apt-get install -y bubblewrap)`;
if (!usable) console.warn(`tests/sandbox.test.ts: bubblewrap tests skipped: ${avail.reason}`);

// CI sets BUNKER_REQUIRE_SANDBOX=1 so a missing or broken bubblewrap fails the run instead of skipping.
test.skipIf(!process.env.BUNKER_REQUIRE_SANDBOX || process.platform !== "linux")("BUNKER_REQUIRE_SANDBOX: bubblewrap works here", () => {
  expect(avail.reason ?? "usable").toBe("usable");
});

describe(`inside bubblewrap${skipReason}`, () => {
  let root: string;
  const hostProbe = `/var/tmp/bunker-sandbox-probe-${process.pid}`;
  let server: ReturnType<typeof Bun.serve> | undefined;

  beforeAll(() => {
    root = tempDir("bunker-sandbox-");
    writeFileSync(`${root}/readme.txt`, "inside the workspace\n");
    mkdirSync(`${root}/.git/hooks`, { recursive: true });
    server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("pong") });
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(hostProbe, { force: true });
    server?.stop(true);
  });

  async function sandboxed(command: string, over: Partial<RunBashOptions> = {}, timeout_ms?: number) {
    const g = emptyGrants();
    g.allow.run.all = true;
    const ctx = makeContext(root, { grants: g });
    const t = createRunBashTool({ sandbox: "on", allowNet: false, allowEnv: [], gitWritable: false, killGraceMs: 300, ...over });
    return (await t.run({ command, timeout_ms }, ctx)) as Exclude<ToolOutput, string>;
  }

  test.skipIf(!usable)("reading and writing the workspace works", async () => {
    const r = await sandboxed("cat readme.txt && echo made > made.txt && mkdir -p sub && echo deep > sub/f");
    expect(r.content).toBe("exit code 0\n\ninside the workspace");
    expect(readFileSync(`${root}/made.txt`, "utf8")).toBe("made\n");
    expect(readFileSync(`${root}/sub/f`, "utf8")).toBe("deep\n");
  });

  test.skipIf(!usable)("a line run unasked because it only reads gets a read-only workspace: nothing unforeseen can write", () => {
    const opts: RunBashOptions = { sandbox: "on", allowNet: false, allowEnv: [], gitWritable: false };
    expect(commandSandboxSpec("touch x", root, opts, true).workspaceReadOnly).toBe(false);
    expect(commandSandboxSpec("cat readme.txt", root, opts, false).workspaceReadOnly).toBe(false);
    const spec = commandSandboxSpec("cat readme.txt", root, opts, true);
    expect(spec.workspaceReadOnly).toBe(true);
    // As if `cat` had been tricked into writing: the same spec, a command that writes.
    const r = Bun.spawnSync(bubblewrapArgs(spec, ["/bin/sh", "-c", "cat readme.txt; touch sneaky.txt"], avail.program!), { cwd: root });
    expect(r.stdout.toString()).toBe("inside the workspace\n");
    expect(r.stderr.toString()).toContain("Read-only file system");
    expect(existsSync(`${root}/sneaky.txt`)).toBe(false);
  });

  test.skipIf(!usable)("writing outside the workspace fails, and the result says the sandbox blocked it", async () => {
    const etcProbe = `/etc/bunker-sandbox-probe-${process.pid}`;
    const r = await sandboxed(`echo x > ${etcProbe}`);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("Read-only file system");
    expect(r.content).toContain("note: The sandbox blocked a write");
    expect(existsSync(etcProbe)).toBe(false);
    // /var/tmp is private like /tmp: a write there lands in the sandbox's own, gone with it.
    expect((await sandboxed(`echo x > ${hostProbe} && cat ${hostProbe}`)).content).toBe("exit code 0\n\nx");
    expect(existsSync(hostProbe)).toBe(false);
  });

  test.skipIf(!usable)("a path the sandbox does not show: the result says in one line what it shows and which flag shows more", async () => {
    const dir = unseenDir("bunker-unseen-");
    try {
      const r = await sandboxed(`cat ${dir}/notes.txt`, { grants: emptyGrants() });
      expect(r.content).toContain(`cat: ${dir}/notes.txt: No such file or directory`);
      const note = r.content.split("\n").at(-1)!;
      expect(note).toStartWith("note: The sandbox shows commands the workspace (read-write; .git and .bunker read-only), the system and toolchain directories and git's config (read-only), what the person granted (--allow-read, --allow-write), a private empty home and a private /tmp; nothing else of this machine.");
      expect(note).toContain(`the person can show it with --allow-read=${dir}/notes.txt (read-only) or --allow-write=${dir}/notes.txt`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test.skipIf(!usable)("/tmp is private: writable inside, invisible outside", async () => {
    const name = `/tmp/bunker-private-${process.pid}`;
    // /run holds nothing of the machine's, only bunker's own: the network proxy socket and the mount check's list.
    const r = await sandboxed(`echo hidden > ${name} && cat ${name} && ls -A /run`);
    expect(r.content).toBe("exit code 0\n\nhidden\nbunker-mount-check.json\nbunker-net");
    expect(existsSync(name)).toBe(false);
  });

  test.skipIf(!usable)("a file in the machine's /tmp is not there, and the result says /tmp is private", async () => {
    const name = `/tmp/bunker-outside-${process.pid}.txt`;
    writeFileSync(name, "outside\n");
    try {
      const r = await sandboxed(`cat ${name}`);
      expect(r.content).toContain("No such file or directory");
      expect(r.content).toContain("/tmp is private: files in the machine's /tmp are not visible inside it.");
    } finally {
      rmSync(name, { force: true });
    }
  });

  test.skipIf(!usable)(".git is read-only unless granted; .bunker always", async () => {
    const denied = await sandboxed("touch .git/hooks/pre-commit");
    expect(denied.content).toContain("Read-only file system");
    expect(existsSync(`${root}/.git/hooks/pre-commit`)).toBe(false);
    // Granted (--allow-write=.git): history is writable, what git obeys is not (git-grant.ts).
    const granted = await sandboxed("touch .git/ORIG_HEAD", { gitWritable: true });
    expect(granted.content).toBe("exit code 0\n\n(no output)");
    expect(existsSync(`${root}/.git/ORIG_HEAD`)).toBe(true);
    const hook = await sandboxed("touch .git/hooks/pre-commit", { gitWritable: true });
    expect(hook.content).toContain("Read-only file system");
    expect(existsSync(`${root}/.git/hooks/pre-commit`)).toBe(false);
    const settings = await sandboxed("echo '{\"allow\":[\"run:*\"]}' > .bunker/settings.json", { gitWritable: true });
    expect(settings.content).toContain("Read-only file system");
    expect(existsSync(`${root}/.bunker/settings.json`)).toBe(false);
    // The empty mount point bubblewrap needed is not left behind in the person's workspace.
    expect(existsSync(`${root}/.bunker`)).toBe(false);
  });

  test.skipIf(!usable)("an existing .bunker directory is kept (even when empty)", async () => {
    mkdirSync(`${root}/.bunker`);
    try {
      await sandboxed("true");
      expect(existsSync(`${root}/.bunker`)).toBe(true);
    } finally {
      rmSync(`${root}/.bunker`, { recursive: true, force: true });
    }
  });

  test.skipIf(!usable)("--deny-write paths inside the workspace are read-only", async () => {
    writeFileSync(`${root}/locked.txt`, "original\n");
    const r = await sandboxed("echo changed > locked.txt", { readOnly: [`${root}/locked.txt`] });
    expect(r.content).toContain("Read-only file system");
    expect(readFileSync(`${root}/locked.txt`, "utf8")).toBe("original\n");
  });

  test.skipIf(!usable)("no network without --allow-net; a local server is reachable with it", async () => {
    const port = server!.port;
    const cmd = `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n' >&3 && cat <&3`;
    const blocked = await sandboxed(cmd);
    expect(blocked.isError).toBe(true);
    expect(blocked.content).not.toContain("pong");
    expect(blocked.content).toContain("--allow-net");
    const open = await sandboxed(cmd, { allowNet: true });
    expect(open.content.split("\n")[0]).toBe("exit code 0");
    expect(open.content).toContain("pong");
  });

  test.skipIf(!usable)("a timeout kills everything inside the sandbox, background jobs included", async () => {
    const marker = `100.${process.pid}`;
    const r = await sandboxed(`sleep ${marker} & bash -c 'sleep ${marker} & wait' & sleep ${marker}`, {}, 400);
    expect(r.content).toContain("timed out after 0.4s");
    // They die as the sandbox is torn down, which a loaded machine may finish after the result (a fixed 100 ms raced it); they would live 100 s.
    await until(() => runningWithArg(marker).length === 0, "the sandbox's processes to die", 10_000);
  });

  test.skipIf(!usable)("bunker's saved sessions are hidden from commands (they hold what the model read elsewhere)", async () => {
    const state = realpathSync(mkdtempSync("/var/tmp/bunker-state-"));
    writeFileSync(`${state}/sessions.db`, "OTHER PROJECT SECRET");
    try {
      const r = await sandboxed(`cat ${state}/sessions.db; ls -A ${state} | wc -l`, runBashOptions({ root, sandbox: "on", allowEnv: [], grants: emptyGrants(), sessionsPath: `${state}/sessions.db` }));
      expect(r.content).not.toContain("OTHER PROJECT SECRET");
      expect(r.content).toContain("\n0");
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  });

  test.skipIf(!usable)("the home directory is a private empty one: credential stores and everything else of it are not there", async () => {
    const home = unseenDir("bunker-home-");
    mkdirSync(`${home}/.ssh`);
    writeFileSync(`${home}/.ssh/id_ed25519`, "PRIVATE KEY");
    writeFileSync(`${home}/.netrc`, "machine x password hunter2");
    writeFileSync(`${home}/.profile`, "profile");
    writeFileSync(`${home}/.gitconfig`, "[user]\n\tname = Shown\n");
    try {
      const r = await sandboxed(`ls -A ${home}; cat ${home}/.gitconfig; echo cache > ${home}/.cache-probe`, { home, env: { PATH: process.env.PATH, HOME: home } });
      expect(r.content).toBe("exit code 0\n\n.gitconfig\n[user]\n\tname = Shown");
      expect(existsSync(`${home}/.cache-probe`)).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test.skipIf(!usable || !Bun.which("bun"))("bun install cannot fill the toolchain's read-only cache: the result names --allow-write for it, and with that grant the cache takes writes", async () => {
    const home = unseenDir("bunker-home-");
    const cache = `${home}/.bun/install/cache`;
    mkdirSync(cache, { recursive: true });
    writeFileSync(`${root}/package.json`, JSON.stringify({ name: "p", dependencies: { "is-number": "7.0.0" } }));
    const env = { PATH: process.env.PATH, HOME: home };
    try {
      const blocked = await sandboxed("bun install --no-save", { home, env });
      expect(blocked.content).toContain(`cannot write files to cache directory "${cache}/": EROFS`);
      expect(blocked.content).toContain(`note: ${cache} is in ${home}/.bun, a toolchain's directory, which the sandbox shows read-only`);
      expect(blocked.content).toContain(`The person can make it writable with --allow-write=${cache} (commands here can then change what is in it). Or the command can use a cache of its own, e.g. BUN_INSTALL_CACHE_DIR=`);
      const granted = await sandboxed(`touch ${cache}/probe`, { home, env, writable: [cache] });
      expect(granted.content).toBe("exit code 0\n\n(no output)");
      expect(existsSync(`${cache}/probe`)).toBe(true);
    } finally {
      rmSync(`${root}/package.json`, { force: true });
      rmSync(home, { recursive: true, force: true });
    }
  });

  test.skipIf(!usable || !Bun.which("git"))("in a git worktree, commits need the .git grant", async () => {
    const base = realpathSync(mkdtempSync("/var/tmp/bunker-git-"));
    const git = (cwd: string, ...args: string[]) =>
      Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdout: "ignore", stderr: "ignore" }).exitCode;
    try {
      expect(git(base, "init", "-q", "main")).toBe(0);
      expect(git(`${base}/main`, "commit", "-q", "--allow-empty", "-m", "first")).toBe(0);
      expect(git(`${base}/main`, "worktree", "add", "-q", `${base}/wt`)).toBe(0);
      const g = emptyGrants();
      g.allow.run.all = true;
      const ctx = makeContext(`${base}/wt`, { grants: g });
      const commit = "git -c user.name=t -c user.email=t@t commit -q --allow-empty -m second";
      const run = (gitWritable: boolean) =>
        createRunBashTool({ sandbox: "on", allowNet: false, allowEnv: [], gitWritable }).run({ command: commit }, ctx) as Promise<Exclude<ToolOutput, string>>;
      expect((await run(false)).content).toContain("Read-only file system");
      expect((await run(true)).content).toBe("exit code 0\n\n(no output)");
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  test.skipIf(!usable || !Bun.which("git"))("a workspace that is a folder of a larger repository: git works, the repository read-only", async () => {
    const base = tempDir("bunker-mono-");
    const git = (...args: string[]) => Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: base, stdout: "ignore", stderr: "ignore" }).exitCode;
    try {
      mkdirSync(`${base}/pkg`);
      writeFileSync(`${base}/pkg/a.txt`, "a\n");
      expect(git("init", "-q", ".")).toBe(0);
      expect(git("add", ".")).toBe(0);
      expect(git("commit", "-q", "-m", "first")).toBe(0);
      const g = emptyGrants();
      g.allow.run.all = true;
      const ctx = makeContext(`${base}/pkg`, { grants: g });
      const tool = createRunBashTool({ sandbox: "on", allowNet: false, allowEnv: [], gitWritable: true });
      const r = (await tool.run({ command: "git log --format=%s; git ls-files; git commit -q --allow-empty -m second" }, ctx)) as Exclude<ToolOutput, string>;
      expect(r.content).toContain("first\na.txt\n");
      expect(r.content).toContain("Read-only file system");
      expect(enclosingGitDirs(`${base}/pkg`, "/nonexistent-home")).toEqual([`${base}/.git`]);
      // Never a repository at or above the home directory (dotfiles).
      expect(enclosingGitDirs(`${base}/pkg`, base)).toEqual([]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  test.skipIf(!usable)("secrets are not in the sandboxed environment either", async () => {
    const r = await sandboxed("echo \"[$ANTHROPIC_API_KEY][$HARMLESS]\"", { env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sk", HARMLESS: "ok" } });
    expect(r.content).toBe("exit code 0\n\n[][ok]");
  });
});

/** Pids of live (not zombie) processes whose command line contains `arg`. */
function runningWithArg(arg: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2)[0];
      if (cmdline.includes(arg) && state !== "Z") found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
