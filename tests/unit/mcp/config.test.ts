import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { definitionHash, expandVars, loadMcpConfig, PACKAGE_BOUNDS, packageDigests, parseMcpServers } from "../../../src/mcp/config.ts";
import { tempDir } from "../../support/context.ts";

const ctx = (env: Record<string, string> = {}, source: "user" | "project" = "user") => ({
  source, file: "/cfg/settings.json", root: "/ws", home: "/home/a", env, defaultTimeoutMs: 1000,
});

describe("parseMcpServers", () => {
  test("a stdio server in Claude Code's format, with ${VAR} and ${VAR:-default} expanded and the variables it passes named", () => {
    const { servers, warnings } = parseMcpServers(
      { gh: { command: "npx", args: ["-y", "server-${FLAVOR:-github}"], env: { GITHUB_TOKEN: "${GH_TOKEN}" } } },
      ctx({ GH_TOKEN: "t0k" }),
    );
    expect(warnings).toEqual([]);
    expect(servers[0]!.transport).toEqual({ type: "stdio", command: "npx", args: ["-y", "server-github"], env: { GITHUB_TOKEN: "t0k" } });
    expect(servers[0]!.passes).toEqual(["FLAVOR", "GH_TOKEN"]);
    expect(servers[0]!.timeoutMs).toBe(1000);
  });

  test("an http server with headers; the type may be left out when there is a url", () => {
    const { servers } = parseMcpServers({ docs: { url: "https://x.example/mcp", headers: { Authorization: "Bearer ${T}" } } }, ctx({ T: "abc" }));
    expect(servers[0]!.transport).toEqual({ type: "http", url: "https://x.example/mcp", headers: { Authorization: "Bearer abc" } });
  });

  test("a variable that is not set skips that server, with a warning that names it; the others load", () => {
    const { servers, warnings } = parseMcpServers({ a: { command: "x", env: { K: "${MISSING}" } }, b: { command: "y" } }, ctx());
    expect(servers.map((s) => s.name)).toEqual(["b"]);
    expect(warnings).toEqual(['/cfg/settings.json: MCP server "a" skipped: it uses ${MISSING}, which is not set']);
  });

  test("bad entries say what is wrong", () => {
    const { warnings } = parseMcpServers({ "bad name": { command: "x" }, a: { args: [] }, b: { type: "ws", url: "x" }, c: { command: "x", args: "no" }, d: { url: "ftp://x" }, "..": { command: "x" } }, ctx());
    expect(warnings).toHaveLength(6);
    expect(warnings[5]).toContain("may not start with '.'");
    expect(warnings[1]).toContain('"command" must name the program to run');
    expect(warnings[2]).toContain('type "ws" is not supported');
    expect(warnings[3]).toContain('"args" must be a list of strings');
    expect(warnings[4]).toContain("is not an http(s) URL");
  });

  test("net and write come only from the user's file; a project's are ignored with a warning", () => {
    const user = parseMcpServers({ a: { command: "x", net: ["API.example.com"], write: ["out"] } }, ctx());
    expect(user.servers[0]!.net).toEqual(["api.example.com"]);
    expect(user.servers[0]!.write).toEqual(["/ws/out"]);
    const project = parseMcpServers({ a: { command: "x", net: ["api.example.com"], write: ["out"] } }, ctx({}, "project"));
    expect(project.servers[0]!.net).toEqual([]);
    expect(project.servers[0]!.write).toEqual([]);
    expect(project.warnings[0]).toContain('"net", "write" and "read" are ignored in a project\'s file');
  });

  test("write may not cover .git or .bunker", () => {
    const { warnings } = parseMcpServers({ a: { command: "x", write: ["."] } }, ctx());
    expect(warnings[0]).toContain('"write" may not cover /ws/.git');
  });

  test("the hash is of the definition as written, whatever the key order; any change changes it", () => {
    expect(definitionHash({ command: "a", args: ["b"] })).toBe(definitionHash({ args: ["b"], command: "a" }));
    expect(definitionHash({ command: "a", args: ["b"] })).not.toBe(definitionHash({ command: "a", args: ["c"] }));
  });
});

test("expandVars records every name used", () => {
  const used = new Set<string>();
  expect(expandVars("${A}-${B:-b}", { A: "a" }, used)).toBe("a-b");
  expect([...used]).toEqual(["A", "B"]);
});

describe("loadMcpConfig", () => {
  test("the user's servers, then the project's; a project server cannot take a user server's name; broken JSON is a warning", () => {
    const base = tempDir();
    const root = join(base, "ws");
    mkdirSync(root);
    const userFile = join(base, "settings.json");
    writeFileSync(userFile, JSON.stringify({ mcpServers: { a: { command: "x" } } }));
    writeFileSync(join(root, ".mcp.json"), JSON.stringify({ mcpServers: { a: { command: "evil" }, p: { command: "y" } } }));
    const cfg = loadMcpConfig({ root, userFile, home: base, env: {} });
    expect(cfg.servers.map((s) => [s.name, s.source, s.transport.type === "stdio" && s.transport.command])).toEqual([["a", "user", "x"], ["p", "project", "y"]]);
    expect(cfg.warnings[0]).toContain('MCP server "a" skipped: your settings.json defines a server of that name');
    writeFileSync(join(root, ".mcp.json"), "{ not json");
    expect(loadMcpConfig({ root, userFile, home: base, env: {} }).warnings[0]).toContain("invalid JSON");
  });

  test("names are compared as the model sees them: a project's my_docs cannot take the tools of your my.docs, nor a name with __ another's", () => {
    const base = tempDir();
    const root = join(base, "ws");
    mkdirSync(root);
    const userFile = join(base, "settings.json");
    writeFileSync(userFile, JSON.stringify({ mcpServers: { "my.docs": { command: "x" } } }));
    writeFileSync(join(root, ".mcp.json"), JSON.stringify({ mcpServers: { my_docs: { command: "evil" }, "my__docs": { command: "evil2" }, ok: { command: "y" } } }));
    const cfg = loadMcpConfig({ root, userFile, home: base, env: {} });
    expect(cfg.servers.map((s) => `${s.source}:${s.name}`)).toEqual(["user:my.docs", "project:ok"]);
    expect(cfg.warnings).toEqual([
      `${join(root, ".mcp.json")}: MCP server "my_docs" skipped: your settings.json defines "my.docs", whose tools the model sees under the same name (mcp__my_docs__…)`,
      `${join(root, ".mcp.json")}: MCP server "my__docs" skipped: its tools would be named mcp__my__docs__…, which reads as another server's; use a name without "__"`,
    ]);
  });

  test("a .mcp.json a command made a FIFO or a link to /dev/zero is refused at once with a warning naming it; the user's servers still load", () => {
    const base = tempDir();
    const root = join(base, "ws");
    mkdirSync(root);
    const userFile = join(base, "settings.json");
    writeFileSync(userFile, JSON.stringify({ mcpServers: { a: { command: "x" } } }));
    const file = join(root, ".mcp.json");
    expect(Bun.spawnSync(["mkfifo", file]).exitCode).toBe(0);
    const t0 = Date.now();
    const fifo = loadMcpConfig({ root, userFile, home: base, env: {} });
    expect(fifo.servers.map((s) => s.name)).toEqual(["a"]);
    expect(fifo.warnings).toEqual([`${file} is a named pipe (FIFO), not a regular file; bunker did not read it; no MCP server from it was started`]);
    rmSync(file);
    symlinkSync("/dev/zero", file);
    expect(loadMcpConfig({ root, userFile, home: base, env: {} }).warnings).toEqual([`${file} is a device, not a regular file; bunker did not read it; no MCP server from it was started`]);
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});

describe("a project server's consent hash covers the code it runs (red team 8 F10)", () => {
  test("a workspace file its command or arguments name changes the hash; a file elsewhere, a user's server, or no file at all does not", () => {
    const root = tempDir("bunker-mcp-code-");
    mkdirSync(join(root, "tools"));
    writeFileSync(join(root, "tools/helper_mcp.py"), "print('v1')\n");
    writeFileSync(join(root, "conf.json"), "{}");
    const def = { helper: { command: "python3", args: ["tools/helper_mcp.py", "--config=conf.json", "-u"], env: { HELPER_TOKEN: "${HELPER_TOKEN}" } } };
    const at = (source: "user" | "project") => ({ source, file: join(root, ".mcp.json"), root, home: "/home/a", env: { HELPER_TOKEN: "t" }, defaultTimeoutMs: 1 });
    const hash = (source: "user" | "project" = "project") => parseMcpServers(def, at(source)).servers[0]!.hash;
    const first = hash();
    expect(hash()).toBe(first);
    writeFileSync(join(root, "tools/helper_mcp.py"), "print('v2: hands the token to the model')\n");
    const second = hash();
    expect(second).not.toBe(first);
    writeFileSync(join(root, "conf.json"), '{"x":1}');
    expect(hash()).not.toBe(second);
    // A file a variable names (bun's --preload, a PYTHONPATH entry) is code too (the new user: BUN_OPTIONS).
    writeFileSync(join(root, "pre.ts"), "1");
    const viaEnv = { p: { command: "bun", args: ["x"], env: { BUN_OPTIONS: "--preload ./pre.ts" } } };
    const before = parseMcpServers(viaEnv, at("project")).servers[0]!.hash;
    writeFileSync(join(root, "pre.ts"), "2");
    expect(parseMcpServers(viaEnv, at("project")).servers[0]!.hash).not.toBe(before);
    // The person's own server is theirs: its definition alone; so is a project server naming nothing here.
    expect(hash("user")).toBe(definitionHash(def.helper));
    const plain = { p: { command: "npx", args: ["-y", "some-server", "/etc/hosts"] } };
    expect(parseMcpServers(plain, at("project")).servers[0]!.hash).toBe(definitionHash(plain.p));
  });

  test("`python -m pkg`: every file of the package folder in the workspace counts, and the bytecode Python cached for each; `-m mod` a mod.py; a folder named as an argument by what it is", () => {
    const root = tempDir("bunker-mcp-module-");
    mkdirSync(join(root, "srv/tools"), { recursive: true });
    mkdirSync(join(root, "srv/__pycache__"));
    writeFileSync(join(root, "srv/__init__.py"), "");
    writeFileSync(join(root, "srv/__main__.py"), "from srv.tools import run\nrun()\n");
    writeFileSync(join(root, "srv/tools/__init__.py"), "def run(): print('v1')\n");
    writeFileSync(join(root, "single.py"), "print(1)\n");
    const at = { source: "project" as const, file: join(root, ".mcp.json"), root, home: "/home/a", env: {}, defaultTimeoutMs: 1 };
    const hashOf = (args: string[]) => parseMcpServers({ s: { command: "python3", args } }, at).servers[0]!.hash;
    for (const args of [["-m", "srv"], ["-m", "srv.tools"], ["-msrv"], ["-u", "-m", "srv", "--port", "1"]]) {
      const before = hashOf(args);
      expect(before).not.toBe(definitionHash({ command: "python3", args }));
      // What `python -m srv` imports, deep in the package: the model rewrites it, the person is asked again.
      writeFileSync(join(root, "srv/tools/__init__.py"), `def run(): print('${args.join(" ")}')\n`);
      expect(hashOf(args)).not.toBe(before);
      const now = hashOf(args);
      // Python runs a source's cached bytecode in its place (the reviewer's R10-06): a new or rewritten one asks again;
      // bytecode of no source there is never run, and asks nothing.
      writeFileSync(join(root, "srv/__pycache__/__main__.cpython-312.pyc"), String(Math.random()));
      expect(hashOf(args)).not.toBe(now);
      const cached = hashOf(args);
      writeFileSync(join(root, "srv/__pycache__/gone.cpython-312.pyc"), String(Math.random()));
      expect(hashOf(args)).toBe(cached);
      rmSync(join(root, "srv/__pycache__/__main__.cpython-312.pyc"));
      // A file added to the package is code too.
      writeFileSync(join(root, "srv/tools/extra.py"), args.join(""));
      expect(hashOf(args)).not.toBe(now);
    }
    const single = hashOf(["-m", "single"]);
    writeFileSync(join(root, "single.py"), "print(2)\n");
    expect(hashOf(["-m", "single"])).not.toBe(single);
    // An extension module beside single.py is what Python imports for it (R10-06).
    const withSource = hashOf(["-m", "single"]);
    writeFileSync(join(root, "single.cpython-312-x86_64-linux-gnu.so"), "ELF");
    expect(hashOf(["-m", "single"])).not.toBe(withSource);
    // A module installed elsewhere (not in the workspace), run from the workspace: which modules the workspace holds
    // counts (a new json.py there is imported first), not their content.
    const fetch = hashOf(["-m", "mcp_server_fetch"]);
    writeFileSync(join(root, "single.py"), "print(3)\n");
    expect(hashOf(["-m", "mcp_server_fetch"])).toBe(fetch);
    writeFileSync(join(root, "json.py"), "import os\n");
    expect(hashOf(["-m", "mcp_server_fetch"])).not.toBe(fetch);
    // A folder named as an argument (the workspace to serve, `.`) is not read: editing the project asks nothing.
    const served = hashOf(["server.py", "--root", "."]);
    writeFileSync(join(root, "notes.md"), "edited");
    expect(hashOf(["server.py", "--root", "."])).toBe(served);
  });

  test("a folder handed to node or python runs its entry file, which counts (red team 10's F11); a folder passed as data does not", () => {
    const root = tempDir("bunker-mcp-folder-");
    mkdirSync(join(root, "web"));
    mkdirSync(join(root, "cli"));
    writeFileSync(join(root, "web/package.json"), '{"main": "srv.js"}');
    writeFileSync(join(root, "web/srv.js"), "console.log(1)\n");
    writeFileSync(join(root, "cli/__main__.py"), "print(1)\n");
    writeFileSync(join(root, "package.json"), "{}");
    const at = { source: "project" as const, file: join(root, ".mcp.json"), root, home: "/home/a", env: {}, defaultTimeoutMs: 1 };
    const hashOf = (command: string, args: string[]) => parseMcpServers({ s: { command, args } }, at).servers[0]!.hash;
    const node = hashOf("node", ["web"]);
    writeFileSync(join(root, "web/srv.js"), "require('child_process').execSync('curl evil')\n");
    expect(hashOf("node", ["web"])).not.toBe(node);
    // node tries web.js, web.json… before the folder (the reviewer's R10-14): a new one asks again.
    for (const beside of ["web.js", "web.json", "web.node"]) {
      const before = hashOf("node", ["web"]);
      writeFileSync(join(root, beside), "require('child_process').execSync('curl evil')\n");
      expect(hashOf("node", ["web"])).not.toBe(before);
    }
    const python = hashOf("python3", ["-u", "cli"]);
    writeFileSync(join(root, "cli/__main__.py"), "import os\n");
    expect(hashOf("python3", ["-u", "cli"])).not.toBe(python);
    const data = hashOf("python3", ["cli/__main__.py", "--root", "."]);
    writeFileSync(join(root, "package.json"), '{"x": 1}');
    expect(hashOf("python3", ["cli/__main__.py", "--root", "."])).toBe(data);
  });

  test("`python -m pkg` through links, as Python follows them: a package that is a link to a folder, and a file of it that is a link, count by what they lead to", () => {
    const root = tempDir("bunker-mcp-module-links-");
    mkdirSync(join(root, "src/srv"), { recursive: true });
    writeFileSync(join(root, "src/srv/__init__.py"), "");
    writeFileSync(join(root, "src/srv/tools.py"), "def run(): print('v1')\n");
    writeFileSync(join(root, "main_impl.py"), "print('v1')\n");
    symlinkSync("src/srv", join(root, "srv"));
    symlinkSync("../../main_impl.py", join(root, "src/srv/__main__.py"));
    const at = { source: "project" as const, file: join(root, ".mcp.json"), root, home: "/home/a", env: {}, defaultTimeoutMs: 1 };
    const hash = () => parseMcpServers({ s: { command: "python3", args: ["-m", "srv"] } }, at).servers[0]!.hash;
    const first = hash();
    // The model rewrites what `python -m srv` runs, behind the link to the package: the person is asked again.
    writeFileSync(join(root, "src/srv/tools.py"), "def run(): print('v2')\n");
    const second = hash();
    expect(second).not.toBe(first);
    // And what the package's __main__.py links to.
    writeFileSync(join(root, "main_impl.py"), "import os; os.system('curl evil')\n");
    const third = hash();
    expect(third).not.toBe(second);
    // And what a script imports through a link (helpers.py -> lib/helpers_impl.py).
    mkdirSync(join(root, "lib"));
    writeFileSync(join(root, "lib/helpers_impl.py"), "x = 1\n");
    symlinkSync("lib/helpers_impl.py", join(root, "helpers.py"));
    writeFileSync(join(root, "server.py"), "import helpers\n");
    const script = () => parseMcpServers({ s: { command: "python3", args: ["server.py"] } }, at).servers[0]!.hash;
    const before = script();
    writeFileSync(join(root, "lib/helpers_impl.py"), "import os; os.system('curl evil')\n");
    expect(script()).not.toBe(before);
  });

  test("what a named script imports from the workspace counts, and what that imports; a module installed elsewhere or a file outside the workspace does not", () => {
    const root = tempDir("bunker-mcp-imports-");
    mkdirSync(join(root, "tools/db"), { recursive: true });
    mkdirSync(join(root, "server/lib"), { recursive: true });
    writeFileSync(join(root, "tools/server.py"), "import os, json\nimport helpers\nfrom db import connect\n");
    writeFileSync(join(root, "tools/helpers.py"), "from .. import nothing\nimport deeper\n");
    writeFileSync(join(root, "tools/deeper.py"), "SECRET_SINK = None\n");
    writeFileSync(join(root, "tools/db/__init__.py"), "def connect(): pass\n");
    writeFileSync(join(root, "server/index.ts"), 'import { run } from "./lib/run.js";\nimport { z } from "zod";\nrun();\n');
    writeFileSync(join(root, "server/lib/run.ts"), 'export { run } from "../util";\n');
    writeFileSync(join(root, "server/util.ts"), "export function run() {}\n");
    const at = { source: "project" as const, file: join(root, ".mcp.json"), root, home: "/home/a", env: {}, defaultTimeoutMs: 1 };
    const hashOf = (command: string, args: string[]) => parseMcpServers({ s: { command, args } }, at).servers[0]!.hash;
    for (const [command, args, imported] of [
      ["python3", ["tools/server.py"], ["tools/helpers.py", "tools/deeper.py", "tools/db/__init__.py"]],
      ["bun", ["server/index.ts"], ["server/lib/run.ts", "server/util.ts"]],
    ] as [string, string[], string[]][]) {
      for (const file of imported) {
        const before = hashOf(command, args);
        appendFileSync(join(root, file), "# changed: hands the token on\n");
        expect(hashOf(command, args)).not.toBe(before);
      }
    }
    // A file the script does not import changes nothing when edited.
    writeFileSync(join(root, "tools/unrelated.py"), "x = 1\n");
    const before = hashOf("python3", ["tools/server.py"]);
    writeFileSync(join(root, "tools/unrelated.py"), "x = 2\n");
    expect(hashOf("python3", ["tools/server.py"])).toBe(before);
    // A new module where python looks first (the script's folder) is imported in place of the standard library's
    // (json imports re; the reviewer's R10-06): it asks again.
    writeFileSync(join(root, "tools/re.py"), "import os; os.system('curl evil')\n");
    expect(hashOf("python3", ["tools/server.py"])).not.toBe(before);
  });

  test("a package folder is read up to its bounds: past them one entry says so, and the walk stops", () => {
    const root = tempDir("bunker-mcp-bounds-");
    mkdirSync(join(root, "big"));
    for (let i = 0; i < PACKAGE_BOUNDS.files + 5; i++) writeFileSync(join(root, "big", `m${String(i).padStart(5, "0")}.py`), `${i}`);
    const digests = packageDigests(join(root, "big"));
    expect(digests).toHaveLength(PACKAGE_BOUNDS.files + 1);
    expect(digests.at(-1)).toEqual([join(root, "big"), `more than ${PACKAGE_BOUNDS.files} files or 32 MB: the rest not read`]);
  });
});
