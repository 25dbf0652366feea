import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../../../src/config.ts";
import { emptyGrants, Policy } from "../../../src/perms/policy.ts";
import { loadRulesFiles, parseRulesFile, RulesFileError, rulesFilePaths } from "../../../src/perms/rules-file.ts";
import { tempDir } from "../../support/context.ts";

/** A workspace and a config home, with the given settings files. */
function setup(files: { workspace?: string; user?: string }) {
  const base = tempDir("bunker-rules-");
  const root = join(base, "ws");
  const config = join(base, "config");
  mkdirSync(root);
  const env = { HOME: join(base, "home"), XDG_CONFIG_HOME: config };
  const paths = rulesFilePaths(root, env);
  if (files.workspace !== undefined) {
    mkdirSync(join(root, ".bunker"));
    writeFileSync(paths.workspace, files.workspace);
  }
  if (files.user !== undefined) {
    mkdirSync(join(config, "bunker"), { recursive: true });
    writeFileSync(paths.user, files.user);
  }
  return { base, root, env, paths };
}

function loadError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RulesFileError);
    return (err as Error).message;
  }
  throw new Error("expected a RulesFileError");
}

describe("rules files: locations", () => {
  test("workspace .bunker/settings.json and $XDG_CONFIG_HOME/bunker/settings.json, default ~/.config", () => {
    expect(rulesFilePaths("/ws", { HOME: "/home/u", XDG_CONFIG_HOME: "/cfg" })).toEqual({
      user: "/cfg/bunker/settings.json",
      workspace: "/ws/.bunker/settings.json",
    });
    expect(rulesFilePaths("/ws", { HOME: "/home/u" }).user).toBe("/home/u/.config/bunker/settings.json");
    // a relative XDG_CONFIG_HOME is ignored, as the spec says
    expect(rulesFilePaths("/ws", { HOME: "/home/u", XDG_CONFIG_HOME: "cfg" }).user).toBe("/home/u/.config/bunker/settings.json");
  });

  test("no files: the grants are returned unchanged", () => {
    const { root, env } = setup({});
    const r = loadRulesFiles(root, emptyGrants(), env);
    expect(r).toEqual({ grants: emptyGrants(), loaded: [], ignored: [] });
  });
});

describe("rules files: what the rules do", () => {
  test("both files merge into grants the policy then applies", () => {
    const { root, env, paths } = setup({
      user: JSON.stringify({ allow: ["read:../shared/**", "net:Registry.NPMJS.org", "run:bun test *", "write:src/**"], deny: ["run:rm *"] }),
      workspace: JSON.stringify({ deny: ["write:src/generated/**", "read:.env"] }),
    });
    const { grants, loaded, ignored } = loadRulesFiles(root, emptyGrants(), env);
    expect(loaded).toEqual([paths.user, paths.workspace]);
    expect(ignored).toEqual([]);
    expect(grants.allow.run.patterns).toEqual(["bun test *"]);
    expect(grants.deny.run.patterns).toEqual(["rm *"]);
    expect(grants.allow.net.hosts).toEqual(["registry.npmjs.org"]);

    const policy = new Policy(root, grants);
    expect(policy.decide("write", join(root, "src/app.ts")).verdict).toBe("allow");
    expect(policy.decide("write", join(root, "src/deep/er/x.ts")).verdict).toBe("allow");
    expect(policy.decide("write", join(root, "docs/a.md")).verdict).toBe("ask");
    expect(policy.decide("write", join(root, "src/generated/x.ts")).verdict).toBe("deny");
    expect(policy.decide("read", join(root, ".env")).verdict).toBe("deny");
    expect(policy.decide("read", join(root, "../shared/lib/a.ts")).verdict).toBe("allow");
    // Not granted: asked, as a read outside the workspace is (N12-11), never allowed unasked.
    expect(policy.decide("read", join(root, "../other/a.ts")).verdict).toBe("ask");
    expect(policy.decide("net", "registry.npmjs.org:443").verdict).toBe("allow");
  });

  test("a path without wildcards covers itself and everything below, like a flag", () => {
    const { root, env } = setup({ user: JSON.stringify({ allow: ["write:docs"] }) });
    const policy = new Policy(root, loadRulesFiles(root, emptyGrants(), env).grants);
    expect(policy.decide("write", join(root, "docs")).verdict).toBe("allow");
    expect(policy.decide("write", join(root, "docs/a/b.md")).verdict).toBe("allow");
    expect(policy.decide("write", join(root, "docs2/a.md")).verdict).toBe("ask");
  });

  test("the literal part of a path is resolved through symlinks, as requests are", () => {
    const { base, root, env } = setup({ user: JSON.stringify({ allow: ["read:../link-to-data/**"] }) });
    mkdirSync(join(base, "data"));
    symlinkSync(join(base, "data"), join(base, "link-to-data"));
    const policy = new Policy(root, loadRulesFiles(root, emptyGrants(), env).grants);
    expect(policy.decide("read", join(base, "data/x.csv")).verdict).toBe("allow");
  });

  test("a workspace whose path has glob characters still matches its own rules", () => {
    const base = tempDir("bunker-rules-");
    const root = join(base, "proj[1]{a}");
    mkdirSync(join(root, ".bunker"), { recursive: true });
    writeFileSync(join(root, ".bunker/settings.json"), JSON.stringify({ deny: ["write:src/*.ts"] }));
    const policy = new Policy(root, loadRulesFiles(root, emptyGrants(), { HOME: base }).grants);
    expect(policy.decide("write", join(root, "src/a.ts")).verdict).toBe("deny");
    expect(policy.decide("write", join(root, "src/a.js")).verdict).toBe("ask");
  });

  test("a workspace's own file cannot grant paths outside the workspace: ignored with a warning; deny rules there are fine", () => {
    const { root, env, paths } = setup({ workspace: JSON.stringify({ allow: ["read:src/**", "read:~/.ssh/**"] }) });
    const { grants, ignored } = loadRulesFiles(root, emptyGrants(), env);
    expect(ignored).toHaveLength(1);
    expect(ignored[0]).toStartWith(`${paths.workspace}:1:25: ignored "read:~/.ssh/**": `);
    expect(ignored[0]).toContain("outside the workspace");
    expect(ignored[0]).toContain(paths.user);
    const policy = new Policy(root, grants);
    // The ignored rule grants nothing: at most asked (this test's home is not the process's, so no credential store either).
    expect(policy.decide("read", join(env.HOME!, ".ssh/id_rsa")).verdict).not.toBe("allow");
    expect(policy.decide("read", join(root, "src/a.ts")).verdict).toBe("allow");

    const ok = setup({ workspace: JSON.stringify({ deny: ["read:/etc/**"] }) });
    const okPolicy = new Policy(ok.root, loadRulesFiles(ok.root, emptyGrants(), ok.env).grants);
    expect(okPolicy.decide("read", "/etc/hosts").verdict).toBe("deny");
  });

  test("a workspace's own file cannot allow commands, network, writes to .git or edits without asking: ignored, each named with how to grant it (red team 11's F15)", () => {
    const { root, env, paths } = setup({
      workspace: JSON.stringify({ allow: ["run:curl *", "net:*", "net:evil.example", "write:.git", "write:src"], deny: ["run:rm *", "net:*"] }),
    });
    const { grants, ignored } = loadRulesFiles(root, emptyGrants(), env);
    expect(ignored.map((l) => l.replace(/^.*?: ignored /, ""))).toEqual([
      expect.stringMatching(/^"run:curl \*": a workspace's own settings cannot allow commands .* add it to .* or pass --allow-run$/),
      expect.stringMatching(/^"net:\*": a workspace's own settings cannot allow network access .* --allow-net$/),
      expect.stringMatching(/^"net:evil.example": .*network access/),
      expect.stringMatching(/^"write:.git": .*cannot allow writes into .git or .bunker/),
      expect.stringMatching(/^"write:src": a workspace's own settings cannot allow edits without asking .* add it to .* or pass --allow-write$/),
    ]);
    expect(ignored[0]).toContain(paths.user);
    expect(grants.allow.run).toEqual({ all: false, programs: [], patterns: [] });
    expect(grants.allow.net).toEqual({ all: false, hosts: [] });
    expect(grants.allow.write.paths).toEqual([]);
    // Restrictions from the workspace are kept.
    expect(grants.deny.run.patterns).toEqual(["rm *"]);
    expect(grants.deny.net.all).toBe(true);
    // The same entries in the user's own file are grants.
    const user = setup({ user: JSON.stringify({ allow: ["run:curl *", "net:*"] }) });
    const u = loadRulesFiles(user.root, emptyGrants(), user.env);
    expect(u.ignored).toEqual([]);
    expect(u.grants.allow.run.patterns).toEqual(["curl *"]);
    expect(u.grants.allow.net.all).toBe(true);
  });

  test("flags' grants passed in are kept and added to", () => {
    const { root, env } = setup({ user: JSON.stringify({ allow: ["run:git status"] }) });
    const flags = emptyGrants();
    flags.allow.run.programs.push("bun");
    flags.allow.write.workspace = true;
    const { grants } = loadRulesFiles(root, flags, env);
    expect(grants.allow.run).toEqual({ all: false, programs: ["bun"], patterns: ["git status"] });
    expect(grants.allow.write.workspace).toBe(true);
  });

  test('"reminders" is accepted and returned, the workspace overriding the user', () => {
    const { root, env } = setup({
      user: JSON.stringify({ reminders: { todoAfter: 5, style: "short" } }),
      workspace: JSON.stringify({ reminders: { todoAfter: 8 } }),
    });
    expect(loadRulesFiles(root, emptyGrants(), env).reminders).toEqual({ todoAfter: 8, style: "short" });
  });

  test('"thinking" sets the default level, the workspace overriding the user; --thinking overrides both', () => {
    const { root, env } = setup({ user: JSON.stringify({ thinking: "low" }), workspace: JSON.stringify({ thinking: "medium" }) });
    expect(loadRulesFiles(root, emptyGrants(), env).thinking).toBe("medium");
    expect(parseConfig(["-C", root], env, true).config!.thinking).toBe("medium");
    expect(parseConfig(["-C", root, "--thinking", "off"], env, true).config!.thinking).toBe("off");
    expect(() => parseConfig(["-C", root, "--thinking", "max"], env, true)).toThrow('--thinking must be off, low, medium or high, not "max"');
  });

  test('"notify": off, on (a turn of 10 s), or the seconds; the workspace overriding the user; anything else refused', () => {
    expect(parseConfig(["-C", setup({}).root], setup({}).env, true).config!.notifyAfterMs).toBe(10_000);
    let { root, env } = setup({ user: JSON.stringify({ notify: false }) });
    expect(parseConfig(["-C", root], env, true).config!.notifyAfterMs).toBeNull();
    ({ root, env } = setup({ user: JSON.stringify({ notify: false }), workspace: JSON.stringify({ notify: 3 }) }));
    expect(parseConfig(["-C", root], env, true).config!.notifyAfterMs).toBe(3_000);
    ({ root, env } = setup({ user: JSON.stringify({ notify: "bell" }) }));
    expect(() => parseConfig(["-C", root], env, true)).toThrow('"notify" must be true, false, or the seconds a turn takes before the prompt\'s wait is signalled (default 10), got "bell"');
  });
});

describe("rules files: malformed files are refused with path, line and entry", () => {
  const cases: { name: string; text: string; expect: string[] }[] = [
    { name: "bad JSON (trailing comma)", text: '{\n  "allow": [\n    "write:src/**",\n  ]\n}\n', expect: [":4:3:", "invalid JSON", "trailing comma"] },
    { name: "bad JSON (missing comma)", text: '{\n  "allow": ["read:a"]\n  "deny": []\n}', expect: [":3:3:", 'expected "," or "}"'] },
    { name: "bad JSON (unterminated string)", text: '{"allow": ["write:src/**]}', expect: [":1:12:", "unterminated string"] },
    { name: "not an object", text: '["write:src/**"]', expect: [":1:1:", "must be a JSON object"] },
    { name: "unknown kind", text: '{\n  "allow": [\n    "write:src/**",\n    "exec:ls"\n  ]\n}', expect: [":4:5:", '"exec:ls"', 'unknown kind "exec"'] },
    { name: "entry without a kind", text: '{"deny": ["src/**"]}', expect: [":1:11:", '"src/**"', "unknown kind"] },
    { name: "entry not a string", text: '{"allow": [{"write": "src"}]}', expect: [":1:12:", "must be a string"] },
    { name: "allow not a list", text: '{"allow": "write:src/**"}', expect: [":1:11:", "must be a list of strings"] },
    { name: "empty value", text: '{"allow": ["write:"]}', expect: ["give a path or glob"] },
    { name: "a URL where a host belongs", text: '{"allow": ["net:https://example.com/x"]}', expect: ["is not a host name (did you mean example.com?)"] },
    { name: "a misspelled kind", text: '{"allow": ["wrte:**"]}', expect: ['unknown kind "wrte" (did you mean write?)'] },
    { name: "unknown top-level key", text: '{"alow": []}', expect: [":1:2:", 'unknown setting "alow"', '"allow"'] },
    { name: "bad reminders", text: '{"reminders": {"todoAfter": -1}}', expect: [":1:29:", "todoAfter"] },
    { name: "bad thinking", text: '{"thinking": "lots"}', expect: [":1:14:", '"thinking" must be one of "off", "low", "medium", "high", got "lots"'] },
    { name: "'..' after a wildcard", text: '{"allow": ["write:src/*/../../x"]}', expect: ['".." may only come before the first wildcard'] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const { root, env, paths } = setup({ workspace: c.text });
      const msg = loadError(() => loadRulesFiles(root, emptyGrants(), env));
      expect(msg.startsWith(paths.workspace + ":")).toBe(true);
      for (const e of c.expect) expect(msg).toContain(e);
    });
  }

  test("the user file is reported with its own path", () => {
    const { root, env, paths } = setup({ user: "{ nope }" });
    expect(loadError(() => loadRulesFiles(root, emptyGrants(), env))).toStartWith(`${paths.user}:1:3: invalid JSON`);
  });

  test("a settings path that is a directory is an error, not silently skipped", () => {
    const { root, env, paths } = setup({});
    mkdirSync(paths.workspace, { recursive: true });
    expect(loadError(() => loadRulesFiles(root, emptyGrants(), env))).toContain(`cannot read the settings file: ${paths.workspace} is a directory, not a file; bunker did not read it`);
  });

  test("a settings file a command made a FIFO, or a link to /dev/zero, is refused at once with an error naming it (never waited on)", () => {
    const { root, env, paths } = setup({});
    mkdirSync(join(root, ".bunker"));
    expect(Bun.spawnSync(["mkfifo", paths.workspace]).exitCode).toBe(0);
    const t0 = Date.now();
    expect(loadError(() => loadRulesFiles(root, emptyGrants(), env))).toBe(`cannot read the settings file: ${paths.workspace} is a named pipe (FIFO), not a regular file; bunker did not read it`);
    rmSync(paths.workspace);
    symlinkSync("/dev/zero", paths.workspace);
    expect(loadError(() => loadRulesFiles(root, emptyGrants(), env))).toBe(`cannot read the settings file: ${paths.workspace} is a device, not a regular file; bunker did not read it`);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  test("a bad file adds none of its rules, not even the good ones before the bad one", () => {
    const g = emptyGrants();
    expect(() => parseRulesFile("/x.json", '{"allow": ["write:a", "bad"]}', "/ws", g, "workspace", {})).toThrow(RulesFileError);
    expect(g).toEqual(emptyGrants());
  });
});

describe("a workspace's own rules in the user's file (reviewer's R12-20)", () => {
  const parse = (file: string, root: string, home: string, pwd?: string) => {
    const grants = emptyGrants();
    parseRulesFile(file, readFileSync(file, "utf8"), root, grants, "user", { HOME: home, ...(pwd ? { PWD: pwd } : {}) });
    return grants.allow.run.patterns;
  };
  test("the key written as the workspace's path is found as written; a key through a link is read only when none is", () => {
    const base = tempDir("bunker-rules-ws-");
    const root = join(base, "ws");
    mkdirSync(root);
    symlinkSync(root, join(base, "link"));
    const file = join(base, "settings.json");
    const write = (workspaces: Record<string, string[]>) =>
      writeFileSync(file, JSON.stringify({ workspaces: Object.fromEntries(Object.entries(workspaces).map(([k, allow]) => [k, { allow: allow.map((a) => `run:${a}`) }])) }));
    // Typed as the name the person reached it by ($PWD).
    write({ [join(base, "link")]: ["make *"] });
    expect(parse(file, root, base, join(base, "link"))).toEqual(["make *"]);
    // A link of another name, not the one the person is in: not looked at (it would cost a stat per saved workspace).
    expect(parse(file, root, base)).toEqual([]);
    // Through a linked parent, ending in the workspace's own name: found.
    symlinkSync(base, join(base, "up"));
    write({ [join(base, "up", "ws")]: ["make *"] });
    expect(parse(file, root, base)).toEqual(["make *"]);
    write({ [root]: ["rm -rf build"], [join(base, "link")]: ["make *"], [join(base, "gone")]: ["ls *"] });
    expect(parse(file, root, base)).toEqual(["rm -rf build"]);
    write({ [`${base}/link/../ws`]: ["make *"], [join(base, "gone")]: ["ls *"], [`${root}/`]: ["mv a b"] });
    expect(parse(file, root, base)).toEqual(["mv a b"]);
  });
  test("a key that holds deny rules is always looked for, whatever its name; a key spelt with /. or // is the path (reviewer's R13-05)", () => {
    const base = tempDir("bunker-rules-ws-deny-");
    const root = join(base, "disk", "alpha");
    mkdirSync(root, { recursive: true });
    mkdirSync(join(base, "home"));
    symlinkSync(root, join(base, "home", "work"));
    const file = join(base, "settings.json");
    const denied = (key: string, pwd?: string) => {
      writeFileSync(file, JSON.stringify({ workspaces: { [key]: { deny: ["read:secrets/**"] } } }));
      const grants = emptyGrants();
      parseRulesFile(file, readFileSync(file, "utf8"), root, grants, "user", { HOME: base, ...(pwd ? { PWD: pwd } : {}) });
      return grants.deny.read.globs;
    };
    expect(denied(join(base, "home", "work"), root)).toEqual([join(root, "secrets/**")]);
    expect(denied(`${root}/.`, join(base, "home", "work"))).toEqual([join(root, "secrets/**")]);
    expect(denied(`${root}/.`, root)).toEqual([join(root, "secrets/**")]);
    expect(denied(`/${root}`)).toEqual([join(root, "secrets/**")]);
    // Another project's denial stays its own.
    expect(denied(join(base, "home"))).toEqual([]);
  });
  test("a key that cannot be looked at (a loop of links) is skipped, not an error", () => {
    const base = tempDir("bunker-rules-ws-");
    const root = join(base, "ws");
    mkdirSync(root);
    symlinkSync(join(base, "b"), join(base, "a"));
    symlinkSync(join(base, "a"), join(base, "b"));
    const file = join(base, "settings.json");
    writeFileSync(file, JSON.stringify({ workspaces: { [join(base, "a", "ws")]: { allow: ["run:ls *"] } } }));
    expect(parse(file, root, base)).toEqual([]);
  });
});

// Reviewer's R12-20 (issue 17): a workspace with no saved key (every new project) stat'ed every saved key before the
// first request. Measured: the file-system calls that name a saved workspace's folder while the file is read.
describe.skipIf(!Bun.which("strace"))("a new project and many saved workspaces", () => {
  test("no saved workspace's path is looked at on disk", () => {
    const base = tempDir("bunker-rules-many-");
    const root = join(base, "new-project");
    mkdirSync(root);
    const file = join(base, "settings.json");
    const saved = join(base, "code");
    writeFileSync(file, JSON.stringify({ workspaces: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [join(saved, `group${i % 7}`, `project-${i}`, "app"), { allow: ["run:make test *"] }])) }));
    const script = join(base, "parse.ts");
    writeFileSync(script, `import { parseRulesFile } from ${JSON.stringify(join(import.meta.dir, "../../../src/perms/rules-file.ts"))};
import { emptyGrants } from ${JSON.stringify(join(import.meta.dir, "../../../src/perms/policy.ts"))};
import { readFileSync } from "node:fs";
const g = emptyGrants();
parseRulesFile(${JSON.stringify(file)}, readFileSync(${JSON.stringify(file)}, "utf8"), ${JSON.stringify(root)}, g, "user", { HOME: ${JSON.stringify(base)}, PWD: ${JSON.stringify(root)} });
console.log(g.allow.run.patterns.length);
`);
    const trace = join(base, "trace");
    const r = Bun.spawnSync(["strace", "-f", "-qq", "-e", "trace=%file", "-o", trace, process.execPath, script], { stdout: "pipe", stderr: "pipe" });
    expect(r.stdout.toString().trim()).toBe("0");
    const calls = readFileSync(trace, "utf8").split("\n").filter((l) => l.includes(saved));
    expect(calls).toEqual([]);
  });
});
