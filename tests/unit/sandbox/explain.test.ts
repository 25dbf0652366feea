// The note a failed sandboxed command gets (src/sandbox/explain.ts): what the
// sandbox shows and which flag shows more, so the model asks the person
// instead of retrying, and the person knows what to pass.
import { expect, test } from "bun:test";
import { describeView, pathNote } from "../../../src/sandbox/explain.ts";
import type { Mount, SandboxSpec } from "../../../src/sandbox/spec.ts";

const spec: SandboxSpec = { root: "/work/proj", allowNet: false, gitWritable: false, writable: [], home: "/home/ann", system: ["/usr"] };

test("a path the sandbox does not show: the note names the flags that show it and says to ask", () => {
  const note = pathNote("cat: /srv/data/x.csv: No such file or directory\n", spec);
  expect(note).toContain("The sandbox shows commands the workspace (read-write; .git and .bunker read-only)");
  expect(note).toContain("/srv/data/x.csv is not among them: the person can show it with --allow-read=/srv/data/x.csv (read-only) or --allow-write=/srv/data/x.csv. Do not retry; ask the person.");
});

test("a path in the home is in the private empty home, not the person's; ~ is read as the home", () => {
  expect(pathNote("ls: cannot access '~/notes/todo.md': No such file or directory", spec)).toContain("/home/ann/notes/todo.md is in the private empty home, not the machine's: the person can show it with --allow-read=/home/ann/notes/todo.md");
});

test("the machine's /tmp is private inside: work in the workspace instead", () => {
  expect(pathNote("open /tmp/build.log: Permission denied", spec)).toContain("/tmp is private: files in the machine's /tmp are not visible inside it. Work with files in the workspace instead.");
});

test("a hidden path needs a grant naming it", () => {
  const mounts: Mount[] = [{ kind: "ro", path: "/usr" }, { kind: "mask", path: "/usr/secret", dir: true }];
  expect(pathNote("cat: /usr/secret/key: Permission denied", spec, spec.home, mounts)).toContain("/usr/secret/key is hidden in it (it holds credentials, or reads there are denied): only a grant naming it shows it (--allow-read=/usr/secret/key)");
});

test("no note for a path the sandbox shows, for output that is no failure, or for a relative path inside the workspace", () => {
  expect(pathNote("cat: /usr/share/dict/words: No such file or directory", spec)).toBeNull();
  expect(pathNote("wrote /srv/data/x.csv", spec)).toBeNull();
  expect(pathNote("cat: ./missing.txt: No such file or directory", { ...spec, writable: [] })).toBeNull();
});

test("a read-only run says the workspace is read-only because the command only reads", () => {
  expect(describeView({ ...spec, workspaceReadOnly: true })).toStartWith("the workspace and every folder granted for writing (read-only, as this command only reads)");
  expect(describeView({ ...spec, workspaceReadOnly: true, writesDenied: true })).toStartWith("the workspace and every folder granted for writing (read-only: a bare --deny-write)");
  expect(describeView({ ...spec, gitWritable: true })).toStartWith("the workspace (read-write; .bunker and .git's config, hooks and info/ read-only)");
});
