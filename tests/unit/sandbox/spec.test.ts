import { expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { privateReadOnly, sandboxMounts, secretPaths, shownAs, toolchainDirs } from "../../../src/sandbox/spec.ts";
import { tempDir } from "../../support/context.ts";

test("the package managers' logins are on the secret list, under the home, XDG_DATA_HOME and the variables that move them", () => {
  const s = secretPaths("/h", "/w", { XDG_DATA_HOME: "/data", GRADLE_USER_HOME: "/g", TF_CLI_CONFIG_FILE: "/t/rc", COMPOSER_HOME: "/c" });
  for (const p of [
    "/h/.local/share/uv/credentials", "/data/uv/credentials", "/h/.config/pypoetry/auth.toml", "/h/.pypirc", "/h/.cargo/credentials.toml",
    "/h/.npmrc", "/h/.bunfig.toml", "/h/.gem/credentials", "/h/.m2/settings.xml", "/h/.m2/settings-security.xml", "/g/gradle.properties",
    "/h/.terraformrc", "/h/.terraform.d", "/t/rc", "/h/.composer/auth.json", "/c/auth.json", "/h/.nuget/NuGet/NuGet.Config",
    "/h/.hex/hex.config", "/h/.config/dart/pub-credentials.json", "/h/.docker", "/h/.kube", "/h/.config/gh", "/h/.netrc", "/h/.git-credentials",
  ]) {
    expect(s).toContain(p);
  }
});

test("a PATH folder in the home is shown itself with what its links lead to, not the folder around it", () => {
  const home = tempDir("bunker-home-");
  const root = join(home, "ws");
  for (const d of [".dotfiles/bin", ".dotfiles/zsh", ".npm-global/bin", ".npm-global/lib/node_modules/t", "tools/x", "ws"]) mkdirSync(join(home, d), { recursive: true });
  writeFileSync(join(home, ".dotfiles/zsh/secrets.zsh"), "x");
  writeFileSync(join(home, ".dotfiles/zsh/prompt.sh"), "x");
  writeFileSync(join(home, ".npm-global/lib/node_modules/t/cli.js"), "x");
  writeFileSync(join(home, "tools/x/run.sh"), "x");
  symlinkSync("../lib/node_modules/t/cli.js", join(home, ".npm-global/bin/t"));
  symlinkSync("../zsh/prompt.sh", join(home, ".dotfiles/bin/prompt")); // not a package area: the file alone
  symlinkSync(join(home, "tools/x/run.sh"), join(home, ".dotfiles/bin/run"));
  const dirs = toolchainDirs({ PATH: `${home}/.dotfiles/bin:${home}/.npm-global/bin` }, home, root);
  for (const d of [".dotfiles/bin", ".dotfiles/zsh/prompt.sh", "tools/x/run.sh", ".npm-global/bin", ".npm-global/lib"]) expect(dirs).toContain(join(home, d));
  for (const no of [".dotfiles", ".dotfiles/zsh", ".npm-global", "tools/x"]) expect(dirs).not.toContain(join(home, no));
});

test("inside a private writable folder (an MCP server's write folder in a read-only workspace), the git wall's paths are read-only", () => {
  const root = tempDir("bunker-private-ro-");
  mkdirSync(join(root, "docs/.git"), { recursive: true });
  const spec = { root, allowNet: false, gitWritable: false, writable: [], workspaceReadOnly: true, system: [], privateDirs: [join(root, "docs")], readOnly: [join(root, "docs/.git")] };
  const mounts = sandboxMounts(spec);
  expect(shownAs(mounts, join(root, "docs/.git/config"))).toBe("ro");
  expect(shownAs(mounts, join(root, "docs/a.md"))).toBe("rw");
  expect(shownAs(mounts, join(root, "src/a.ts"))).toBe("ro");
  expect(privateReadOnly(spec)).toEqual([join(root, "docs/.git")]);
});

test("the session's /tmp and /var/tmp: the session's folder, writable to a command that may write, read-only to a line run unasked because it only reads; /run stays empty", () => {
  const root = tempDir("bunker-session-tmp-");
  const spec = (readOnly: boolean) => ({ root, allowNet: false, gitWritable: false, writable: [], workspaceReadOnly: readOnly, system: [], sessionTmp: { dir: "/state/bunker-tmp-1-2", readOnly } });
  for (const readOnly of [false, true]) {
    const mounts = sandboxMounts(spec(readOnly), "linux");
    expect(mounts).toContainEqual({ kind: "kept", path: "/tmp", source: "/state/bunker-tmp-1-2/tmp", writable: !readOnly });
    expect(mounts).toContainEqual({ kind: "kept", path: "/var/tmp", source: "/state/bunker-tmp-1-2/var-tmp", writable: !readOnly });
    expect(shownAs(mounts, "/tmp/out")).toBe(readOnly ? "ro" : "private");
    expect(mounts).toContainEqual({ kind: "empty", path: "/run", writable: true });
  }
  // Without one (an MCP server): each an empty in-memory folder of its own.
  const { sessionTmp: _, ...none } = spec(false);
  expect(sandboxMounts(none, "linux")).toContainEqual({ kind: "empty", path: "/tmp", writable: true });
});
