import { expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseMcpServers } from "../../../src/mcp/config.ts";
import { serverView, type ViewContext } from "../../../src/mcp/view.ts";
import { tempDir } from "../../support/context.ts";

/** A workspace, a package outside it (with a manifest), a loose file and a credential store. */
function scene() {
  const base = tempDir();
  const root = join(base, "ws");
  const home = join(base, "home");
  const pkg = join(base, "pkg");
  for (const d of [root, join(home, ".ssh"), join(pkg, "dist"), join(base, "bin")]) mkdirSync(d, { recursive: true });
  writeFileSync(join(pkg, "package.json"), "{}");
  writeFileSync(join(pkg, "dist", "index.js"), "");
  writeFileSync(join(base, "loose.env"), "x");
  writeFileSync(join(home, ".ssh", "id"), "KEY");
  writeFileSync(join(base, "bin", "srv"), "");
  writeFileSync(join(root, "srv.ts"), "");
  symlinkSync(join(base, "loose.env"), join(root, "link.txt"));
  const ctx: ViewContext = { root, home, program: "/usr/bin/env", shownAnyway: ["/usr"], hidden: [join(home, ".ssh")], granted: [] };
  return { base, root, home, pkg, ctx };
}

const def = (raw: Record<string, unknown>, source: "user" | "project", root: string) =>
  parseMcpServers({ s: raw }, { source, file: "f", root, home: "/h", env: {}, defaultTimeoutMs: 1 }).servers[0]!;

test("a project's server: nothing its arguments name outside the workspace (directly, as --flag=PATH, or through a link) is shown; each is listed as not shown", () => {
  const { base, root, pkg, ctx } = scene();
  const d = def({ command: "env", args: ["./srv.ts", join(pkg, "dist", "index.js"), `--env=${join(base, "loose.env")}`, "./link.txt", "/usr/share", "not-a-path"] }, "project", root);
  expect(serverView(d, ctx)).toEqual({ readable: [], notShown: [join(pkg, "dist", "index.js"), join(base, "loose.env")] });
});

test("a project's server: a program found on PATH is shown; one it names by path outside the workspace is not", () => {
  const { base, root, ctx } = scene();
  const onPath = { ...ctx, program: join(base, "bin", "srv") };
  expect(serverView(def({ command: "srv" }, "project", root), onPath).readable).toEqual([join(base, "bin", "srv")]);
  expect(serverView(def({ command: join(base, "bin", "srv") }, "project", root), onPath)).toEqual({ readable: [], notShown: [join(base, "bin", "srv")] });
});

test("a user's server: the files its arguments name (a script's whole package) read-only, never a credential store or a link to one", () => {
  const { base, root, home, pkg, ctx } = scene();
  symlinkSync(join(home, ".ssh", "id"), join(base, "innocent"));
  const d = def({ command: "env", args: [join(pkg, "dist", "index.js"), join(base, "loose.env"), join(home, ".ssh", "id"), join(base, "innocent")] }, "user", root);
  const view = serverView(d, ctx);
  expect(view.readable).toEqual([pkg, join(base, "loose.env")]);
  expect(view.notShown).toEqual([join(home, ".ssh", "id")]);
});

test("what the person grants (a `read` list for a project's server in the user's file, or --allow-read) is shown, and no longer listed as not shown", () => {
  const { base, root, ctx } = scene();
  const user = parseMcpServers({ s: { read: [join(base, "loose.env")] } }, { source: "user", file: "u", root, home: "/h", env: {}, defaultTimeoutMs: 1 });
  expect(user.servers).toEqual([]);
  const d = { ...def({ command: "env", args: [join(base, "loose.env")] }, "project", root), ...user.grants.s! };
  expect(serverView(d, ctx)).toEqual({ readable: [join(base, "loose.env")], notShown: [] });
  const flagged = def({ command: "env", args: [join(base, "loose.env")] }, "project", root);
  expect(serverView(flagged, { ...ctx, granted: [base] })).toEqual({ readable: [base], notShown: [] });
});
