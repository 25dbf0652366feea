// scripts/install.sh against a local release server (Bun.serve on 127.0.0.1).
// The "binaries" are tiny shell scripts that print which build they are, so
// the test sees exactly which file was chosen, verified and installed. The
// installer runs with a PATH holding only the tools it may use, and fake
// `uname`/`ldd` where a test plays another platform.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { writeChecksums } from "../../scripts/build/checksums.ts";
import { RELEASE_TARGETS, runsOnHost } from "../../scripts/build/targets.ts";

const INSTALL_SH = resolve(import.meta.dir, "../../scripts/install.sh");
const BASE_TOOLS = ["uname", "mktemp", "rm", "mkdir", "cp", "chmod", "mv", "awk", "tr"];
// Used for detection where the platform has them (ldd on Linux, sysctl on macOS).
const OPTIONAL_TOOLS = ["ldd", "sysctl"];

let work: string;
let server: ReturnType<typeof Bun.serve>;
let baseUrl: string;
const requested: string[] = [];

function fakeBinary(file: string): string {
  return `#!/bin/sh\necho "bunker 9.9.9-test (${file})"\n`;
}

/** A release directory like dist/: one fake binary per target and SHA256SUMS made by the build's own code. */
async function makeRelease(name: string, targets = RELEASE_TARGETS.map((t) => t.file)): Promise<string> {
  const dir = join(work, "srv", name);
  mkdirSync(dir, { recursive: true });
  for (const file of targets) {
    writeFileSync(join(dir, file), fakeBinary(file));
    chmodSync(join(dir, file), 0o755);
  }
  await writeChecksums(dir, targets);
  return dir;
}

/** A directory for PATH with links to the real `tools` and fake `uname`/`ldd` scripts when given. */
function toolDir(opts: { tools: string[]; uname?: [string, string]; ldd?: string }): string {
  const dir = mkdtempSync(join(work, "bin-"));
  for (const tool of [...opts.tools, ...OPTIONAL_TOOLS]) {
    const real = Bun.which(tool);
    if (real) symlinkSync(real, join(dir, tool));
    else if (!OPTIONAL_TOOLS.includes(tool)) throw new Error(`test needs ${tool} on this machine`);
  }
  const script = (name: string, body: string) => {
    rmSync(join(dir, name), { force: true });
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  if (opts.uname) script("uname", `case "$1" in -s) echo '${opts.uname[0]}' ;; -m) echo '${opts.uname[1]}' ;; esac`);
  if (opts.ldd) script("ldd", `echo '${opts.ldd}' >&2; exit 1`);
  return dir;
}

const defaultTools = () => toolDir({ tools: [...BASE_TOOLS, "curl", "sha256sum"] });

interface InstallRun {
  code: number;
  stdout: string;
  stderr: string;
  home: string;
}

async function install(release: string, path: string, env: Record<string, string> = {}): Promise<InstallRun> {
  const home = mkdtempSync(join(work, "home-"));
  // Async spawn: this process also serves the downloads.
  const proc = Bun.spawn(["/bin/sh", INSTALL_SH], {
    env: { PATH: path, HOME: home, SHELL: "/bin/bash", BUNKER_RELEASE_URL: `${baseUrl}/${release}`, ...env },
    cwd: home,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited,
  ]);
  return { code, stdout, stderr, home };
}

const installedAt = (r: InstallRun, name = "bunker") => join(r.home, ".local/bin", name);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "bunker-install-test-"));
  const root = join(work, "srv");
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = decodeURIComponent(new URL(req.url).pathname);
      requested.push(path);
      const file = resolve(root, `.${path}`);
      if (!file.startsWith(root + "/") || !existsSync(file) || !statSync(file).isFile()) {
        return new Response("Not Found", { status: 404 });
      }
      return new Response(Bun.file(file));
    },
  });
  baseUrl = `http://127.0.0.1:${server.port}`;

  await makeRelease("good");
  // Same SHA256SUMS as a good release, but one binary was changed after it was summed.
  const tampered = await makeRelease("tampered");
  writeFileSync(join(tampered, "bunker-linux-x64"), `#!/bin/sh\necho evil\n`);
  // A release without the arm64 Linux binary, listed in SHA256SUMS or not.
  const partial = await makeRelease("partial");
  rmSync(join(partial, "bunker-linux-arm64"));
  await makeRelease("unlisted", RELEASE_TARGETS.map((t) => t.file).filter((f) => f !== "bunker-darwin-x64"));
  writeFileSync(join(work, "srv/unlisted/bunker-darwin-x64"), fakeBinary("bunker-darwin-x64"));
});

afterAll(() => {
  server?.stop(true);
  rmSync(work, { recursive: true, force: true });
});

describe("install.sh picks the build for the platform", () => {
  test("this machine's build, installed to ~/.local/bin with PATH advice", async () => {
    const host = RELEASE_TARGETS.find(runsOnHost);
    if (!host) throw new Error(`no release target for this machine (${process.platform}-${process.arch})`);
    const expected = host.file;
    const r = await install("good", defaultTools());
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const bin = installedAt(r);
    expect(readFileSync(bin, "utf8")).toBe(fakeBinary(expected));
    expect(statSync(bin).mode & 0o111).not.toBe(0);
    // It ran the installed binary and shows its version.
    expect(r.stdout).toContain(`bunker 9.9.9-test (${expected})`);
    // Not on PATH: explains how to add it for the user's shell.
    expect(r.stdout).toContain(`is not on your PATH`);
    expect(r.stdout).toContain(`echo 'export PATH="${join(r.home, ".local/bin")}:$PATH"' >> "${join(r.home, ".bashrc")}"`);
    // No staging files left behind.
    expect(readdirSync(join(r.home, ".local/bin"))).toEqual(["bunker"]);
  });

  const cases: [string, [string, string], string | undefined, string, string][] = [
    ["Linux x86_64 glibc", ["Linux", "x86_64"], "ldd (GNU libc) 2.36", "bunker-linux-x64", "bunker"],
    ["Linux aarch64 glibc", ["Linux", "aarch64"], "ldd (Debian GLIBC 2.36-9) 2.36", "bunker-linux-arm64", "bunker"],
    ["Linux x86_64 musl (Alpine)", ["Linux", "x86_64"], "musl libc (x86_64)\nVersion 1.2.4", "bunker-linux-x64-musl", "bunker"],
    ["macOS Intel", ["Darwin", "x86_64"], undefined, "bunker-darwin-x64", "bunker"],
    ["macOS Apple silicon", ["Darwin", "arm64"], undefined, "bunker-darwin-arm64", "bunker"],
    ["Windows (Git Bash)", ["MINGW64_NT-10.0-19045", "x86_64"], undefined, "bunker-windows-x64.exe", "bunker.exe"],
  ];
  for (const [label, uname, ldd, file, name] of cases) {
    test(`${label} → ${file}`, async () => {
      const r = await install("good", toolDir({ tools: [...BASE_TOOLS, "curl", "sha256sum"], uname, ldd }));
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(readFileSync(installedAt(r, name), "utf8")).toBe(fakeBinary(file));
      expect(r.stdout).toContain(`Installed ${installedAt(r, name)}`);
    });
  }

  test("BUNKER_TARGET overrides detection; BUNKER_INSTALL on PATH needs no advice", async () => {
    const tools = defaultTools();
    const dest = mkdtempSync(join(work, "dest-"));
    const r = await install("good", `${tools}:${dest}`, { BUNKER_TARGET: "linux-x64-musl", BUNKER_INSTALL: dest });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dest, "bunker"), "utf8")).toBe(fakeBinary("bunker-linux-x64-musl"));
    expect(r.stdout).toContain("Run bunker in a project directory to start.");
    expect(r.stdout).not.toContain("not on your PATH");
    expect(existsSync(installedAt(r))).toBe(false);
  });

  test("works with wget and shasum instead of curl and sha256sum", async () => {
    const r = await install("good", toolDir({ tools: [...BASE_TOOLS, "wget", "shasum"], uname: ["Linux", "aarch64"], ldd: "ldd (GNU libc) 2.36" }));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(readFileSync(installedAt(r), "utf8")).toBe(fakeBinary("bunker-linux-arm64"));
  });

  test("without curl or wget it says what is needed and installs nothing", async () => {
    const r = await install("good", toolDir({ tools: [...BASE_TOOLS, "sha256sum"], uname: ["Linux", "x86_64"] }));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("needs curl or wget");
    expect(existsSync(installedAt(r))).toBe(false);
  });
});

describe("install.sh refuses and installs nothing", () => {
  test("checksum mismatch: refused, and an existing bunker is left as it was", async () => {
    const home = mkdtempSync(join(work, "home-"));
    const bin = join(home, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "bunker"), "old bunker\n");
    const r = await install("tampered", toolDir({ tools: [...BASE_TOOLS, "curl", "sha256sum"], uname: ["Linux", "x86_64"], ldd: "GNU libc" }), { BUNKER_INSTALL: bin });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("checksum mismatch for bunker-linux-x64");
    expect(r.stderr).toContain("nothing was installed");
    expect(readdirSync(bin)).toEqual(["bunker"]);
    expect(readFileSync(join(bin, "bunker"), "utf8")).toBe("old bunker\n");
    expect(r.stdout).not.toContain("Installed");
  });

  test("checksum mismatch into the default directory creates nothing", async () => {
    const r = await install("tampered", toolDir({ tools: [...BASE_TOOLS, "curl", "sha256sum"], uname: ["Linux", "x86_64"], ldd: "GNU libc" }));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("checksum mismatch");
    expect(existsSync(join(r.home, ".local"))).toBe(false);
  });

  test("binary missing from the release: names the platform", async () => {
    const r = await install("partial", toolDir({ tools: [...BASE_TOOLS, "curl", "sha256sum"], uname: ["Linux", "aarch64"], ldd: "GNU libc" }));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`could not download ${baseUrl}/partial/bunker-linux-arm64 (is there a linux-arm64 build in this release?)`);
    expect(existsSync(join(r.home, ".local"))).toBe(false);
  });

  test("binary present but not listed in SHA256SUMS: refused", async () => {
    const r = await install("unlisted", toolDir({ tools: [...BASE_TOOLS, "curl", "sha256sum"], uname: ["Darwin", "x86_64"] }));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("lists no bunker-darwin-x64; nothing was installed");
    expect(existsSync(join(r.home, ".local"))).toBe(false);
  });

  test("platforms with no build are refused before downloading anything", async () => {
    const platforms: [string, string, string | undefined, string][] = [
      ["Linux", "aarch64", "musl libc (aarch64)", "no bunker build for linux-arm64-musl"],
      ["FreeBSD", "amd64", undefined, "no bunker build for the operating system 'FreeBSD'"],
      ["Linux", "riscv64", undefined, "no bunker build for the CPU 'riscv64' on linux"],
    ];
    for (const [os, cpu, ldd, message] of platforms) {
      const before = requested.length;
      const r = await install("good", toolDir({ tools: [...BASE_TOOLS, "curl", "sha256sum"], uname: [os, cpu], ldd }));
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(message);
      expect(r.stderr).toContain("linux-x64 linux-arm64 linux-x64-musl darwin-x64 darwin-arm64 windows-x64");
      expect(requested.length).toBe(before);
      expect(existsSync(join(r.home, ".local"))).toBe(false);
    }
  });

  test("an unknown BUNKER_TARGET is refused", async () => {
    const r = await install("good", defaultTools(), { BUNKER_TARGET: "plan9-x64" });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("no bunker build for plan9-x64");
  });
});
