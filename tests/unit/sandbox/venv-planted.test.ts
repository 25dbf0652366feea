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

  // What the planted standard library's encodings does: leave the mark, then put the real one back (python works as before).
  const shim = (mark: string) => `import sys, posix\nposix.close(posix.open(${JSON.stringify(mark)}, posix.O_WRONLY | posix.O_CREAT, 0o644))\nreal = posix.readlink("/proc/self/exe").rsplit("/bin/", 1)[0] + "/lib/${version}"\nsys.path[:] = [real, real + "/lib-dynload"] + [p for p in sys.path if "/.cache/py/" not in p]\ndel sys.modules["encodings"]\nimport encodings\n`;
  const plantStdlib = (pyvenv: string) => `mkdir -p .cache/py/lib/${version}/encodings && : > .cache/py/lib/${version}/os.py && printf '%s' '${shim(MARK)}' > .cache/py/lib/${version}/encodings/__init__.py && printf 'home = %s/.cache/py/bin\n' "$PWD" > ${pyvenv}`;

  test("red team 13's F01: a pip.conf made in the environment (pip's site config: find-links, index-url) is set aside; the person's own is read-only", async () => {
    const plant = "printf '[global]\\nfind-links = /tmp/wheels\\n' > .venv/pip.conf && echo planted";
    const root = workspace(personVenv);
    const out = await sandboxed(root, plant);
    expect(out).toContain("bunker set aside .venv/pip.conf, which the command created (pip (or conda) obeys it at every install in this environment");
    expect(existsSync(join(root, ".venv/pip.conf"))).toBe(false);
    // The person's own: the command cannot change it.
    const own = workspace(personVenv);
    writeFileSync(join(own, ".venv/pip.conf"), "[global]\ntimeout = 60\n");
    const tried = await sandboxed(own, "printf '[global]\\nindex-url = http://evil.example/simple\\n' > .venv/pip.conf; cat .venv/pip.conf");
    expect(tried).toContain("timeout = 60");
    expect(readFileSync(join(own, ".venv/pip.conf"), "utf8")).toBe("[global]\ntimeout = 60\n");
  });

  test("red team 8 F3: pyvenv.cfg is read-only (its home would move the standard library into the workspace), and one made in bin/ is set aside", async () => {
    const control = workspace(personVenv);
    expect(sh(control, plantStdlib(".venv/pyvenv.cfg")).exitCode).toBe(0);
    expect(sh(control, ".venv/bin/python3 -c pass").exitCode).toBe(0);
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace(personVenv);
    const out = await sandboxed(root, plantStdlib(".venv/pyvenv.cfg"));
    expect(out.split("\n")[0]).not.toBe("exit code 0");
    expect(readFileSync(join(root, ".venv/pyvenv.cfg"), "utf8")).toBe("home = /usr/bin\ninclude-system-site-packages = false\n");
    // Python reads bin/pyvenv.cfg first, when there is one.
    const inBin = await sandboxed(root, plantStdlib(".venv/bin/pyvenv.cfg"));
    expect(inBin).toContain("bunker set aside .venv/bin/pyvenv.cfg, which the command created (Python reads it at every start of this virtual environment's python");
    expect(sh(root, ".venv/bin/python3 -c pass").exitCode).toBe(0);
    expect(existsSync(MARK)).toBe(false);
  });

  test("red team 8 F3b: the module a .pth imports (setuptools' _distutils_hack) is read-only; one a .pth names that is not there (uv's _virtualenv) is set aside when made; its bytecode is removed", async () => {
    const hooked = (root: string) => {
      personVenv(root);
      mkdirSync(join(root, SP, "_distutils_hack"));
      writeFileSync(join(root, SP, "distutils-precedence.pth"), "import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'local') == 'local'; enabled and __import__('_distutils_hack').add_shim(); \n");
      writeFileSync(join(root, SP, "_distutils_hack/__init__.py"), "def add_shim():\n    pass\n");
      writeFileSync(join(root, SP, "_virtualenv.pth"), "import _virtualenv\n");
    };
    const plant = `printf '\n${mark}\n' >> ${SP}/_distutils_hack/__init__.py`;
    const control = workspace(hooked);
    expect(sh(control, plant).exitCode).toBe(0);
    sh(control, ".venv/bin/python3 -c pass");
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace(hooked);
    const out = await sandboxed(root, plant);
    expect(out.split("\n")[0]).not.toBe("exit code 0");
    const made = await sandboxed(root, `echo '${mark}' > ${SP}/_virtualenv.py && mkdir -p ${SP}/__pycache__ && echo x > ${SP}/__pycache__/_virtualenv.cpython-311.pyc && echo 'x = 1' > ${SP}/mylib.py`);
    expect(made).toContain(`bunker set aside ${SP}/_virtualenv.py, which the command created (Python runs it at every start`);
    expect(made).not.toContain("mylib");
    expect(existsSync(join(root, SP, "__pycache__/_virtualenv.cpython-311.pyc"))).toBe(false);
    expect(existsSync(join(root, SP, "mylib.py"))).toBe(true);
    expect(sh(root, ".venv/bin/python3 -c pass").exitCode).toBe(0);
    expect(existsSync(MARK)).toBe(false);
  });

  test("red team 8 F21: a conda or pixi environment (conda-meta/, no pyvenv.cfg) is guarded like a venv", async () => {
    const conda = (root: string) => {
      const env = join(root, ".pixi/envs/default");
      mkdirSync(join(env, "conda-meta"), { recursive: true });
      mkdirSync(join(env, `lib/${version}/site-packages`), { recursive: true });
      mkdirSync(join(env, `lib/${version}/encodings`), { recursive: true });
      writeFileSync(join(env, `lib/${version}/encodings/__init__.py`), "# the env's own\n");
      mkdirSync(join(env, "bin"));
      writeFileSync(join(env, "bin/python3"), "#!/bin/sh\n");
      writeFileSync(join(root, ".gitignore"), ".pixi/\n");
    };
    const root = workspace(conda);
    const env = ".pixi/envs/default";
    const out = await sandboxed(root, `echo 'import os' > ${env}/lib/${version}/site-packages/zz-init.pth && mkdir -p ${env}/etc/conda/activate.d && echo '${touch}' > ${env}/etc/conda/activate.d/x.sh`);
    expect(out).toContain(`bunker set aside ${env}/lib/${version}/site-packages/zz-init.pth, which the command created (Python runs it`);
    expect(out).toContain(`bunker set aside ${env}/etc/conda/activate.d/x.sh, which the command created (conda (or pixi, mamba) runs it`);
    for (const f of [`${env}/bin/python3`, `${env}/lib/${version}/encodings/__init__.py`]) {
      expect((await sandboxed(root, `echo '${touch}' >> ${f}`)).split("\n")[0]).not.toBe("exit code 0");
      expect(readFileSync(join(root, f), "utf8")).not.toContain(touch);
    }
  });
});
