// Red team 6's F10d/F10e: a command plants code in the person's Python virtual environment (a .pth file or a
// sitecustomize.py in its site-packages, which every start of its python runs; a program in its bin/ named like
// one on the person's PATH). Each row runs the attack unconfined first (the marker fires), then in the real
// sandbox (the judge allows everything), then the person's own python or git on the host.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { plantingBench } from "../../support/planting.ts";

// The system's python itself (a version manager's shim, pyenv's, is a script that makes no venv when linked to).
const python = ["/usr/bin/python3", "/usr/local/bin/python3"].find((p) => existsSync(p)) ?? null;
const usable = detectSandbox().kind === "bubblewrap" && python !== null;
const { hostEnv, MARK, touch, workspace, sandboxed } = plantingBench("bunker-venv-");
const version = python ? Bun.spawnSync([python, "-c", "import sys; print(f'python{sys.version_info[0]}.{sys.version_info[1]}')"]).stdout.toString().trim() : "";
const SP = `.venv/lib/${version}/site-packages`;

/** The person's virtual environment, as `python3 -m venv --without-pip .venv` lays it out (made by hand: faster). */
function personVenv(root: string): void {
  mkdirSync(join(root, ".venv/bin"), { recursive: true });
  mkdirSync(join(root, SP), { recursive: true });
  symlinkSync("lib", join(root, ".venv/lib64"));
  writeFileSync(join(root, ".venv/pyvenv.cfg"), `home = /usr/bin\ninclude-system-site-packages = false\n`);
  symlinkSync(python!, join(root, ".venv/bin/python3"));
  writeFileSync(join(root, ".venv/bin/activate"), `VIRTUAL_ENV=${root}/.venv\nPATH="$VIRTUAL_ENV/bin:$PATH"\n`);
  writeFileSync(join(root, ".gitignore"), ".venv/\n");
}

const sh = (cwd: string, command: string, env = hostEnv) => Bun.spawnSync(["bash", "-c", command], { cwd, env, stdout: "pipe", stderr: "pipe", timeout: 10_000 });
const mark = `import os; open(${JSON.stringify(MARK)}, "w")`;

describe.skipIf(!usable)("what a command plants in the person's virtual environment does not run on their next python or git (real bubblewrap)", () => {
  const rows = [
    { name: "red team 6, F10d: a .pth file in site-packages (runs at every start of the venv's python)", file: `${SP}/_cache.pth` },
    // (A sitecustomize.py there is matched too: tests/unit/perms/venv.test.ts. Debian's python imports its own first.)
    { name: "a .pth file whose name pip uses for editable installs", file: `${SP}/__editable__.evil-0.1.pth` },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const plant = `echo '${mark}' > ${row.file}`;
      const control = workspace(personVenv);
      expect(sh(control, plant).exitCode).toBe(0);
      sh(control, ".venv/bin/python3 -c pass");
      expect(existsSync(MARK)).toBe(true);
      rmSync(MARK);

      const root = workspace(personVenv);
      const out = await sandboxed(root, plant);
      expect(out.split("\n")[0]).toBe("exit code 0");
      expect(out).toContain(`bunker set aside ${row.file}, which the command created (Python runs it at every start of this virtual environment's python`);
      expect(out).toContain(`to restore it after checking it: mv ${row.file}.bunker-set-aside ${row.file}`);
      expect(sh(root, ".venv/bin/python3 -c pass").exitCode).toBe(0);
      expect(existsSync(MARK)).toBe(false);
    });
  }

  test("in bin/: a new program named like one on the person's PATH (git) is set aside, a new one of the project's own (mytool) stays; activate is read-only", async () => {
    const plant = `printf '#!/bin/sh\\n${touch}\\n' > .venv/bin/git && chmod +x .venv/bin/git && printf '#!/bin/sh\\necho mine\\n' > .venv/bin/mytool && chmod +x .venv/bin/mytool`;
    const control = workspace(personVenv);
    expect(sh(control, plant).exitCode).toBe(0);
    sh(control, `PATH=${control}/.venv/bin:$PATH git status`);
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace(personVenv);
    const out = await sandboxed(root, plant);
    expect(out.split("\n")[0]).toBe("exit code 0");
    expect(out).toContain("bunker set aside .venv/bin/git, which the command created (your shell runs it instead of");
    expect(out).not.toContain(".venv/bin/mytool");
    expect(sh(root, `. .venv/bin/activate && mytool && git status`).stdout.toString()).toContain("mine");
    expect(existsSync(MARK)).toBe(false);

    const activate = await sandboxed(root, `echo '${touch}' >> .venv/bin/activate`);
    expect(activate.split("\n")[0]).not.toBe("exit code 0");
    expect(readFileSync(join(root, ".venv/bin/activate"), "utf8")).not.toContain(touch);
  });

  test("a virtual environment the command makes works in the next command, is said, and is guarded from then on", async () => {
    const root = workspace();
    const made = await sandboxed(root, `${python} -m venv --without-pip v2`);
    expect(made.split("\n")[0]).toBe("exit code 0");
    expect(made).toContain("\nnote: the command created a Python virtual environment at v2: everything in it is the command's");
    expect(made).not.toContain("note: note:");
    expect((await sandboxed(root, "v2/bin/python3 -c 'import sys; print(sys.prefix)'")).split("\n")[0]).toBe("exit code 0");
    const sp = `v2/lib/${version}/site-packages`;
    const out = await sandboxed(root, `echo '${mark}' > ${sp}/x.pth`);
    expect(out).toContain(`bunker set aside ${sp}/x.pth, which the command created`);
    expect(sh(root, "v2/bin/python3 -c pass").exitCode).toBe(0);
    expect(existsSync(MARK)).toBe(false);
  });
});
