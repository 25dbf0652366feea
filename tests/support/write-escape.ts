// Setup shared by the write tools' tests (edit_file, write_file): a grant to
// write anywhere in the workspace, and one test per escape-table row.
import { expect } from "bun:test";
import { readFileSync } from "node:fs";
import { emptyGrants, type Grants } from "../../src/perms/policy.ts";
import { makeContext, type TestContext } from "./context.ts";
import { eachEscape, type EscapeAttempt, type EscapeFixture } from "./escape-table.ts";

/** Writes anywhere in the workspace allowed, as --allow-write does. */
export function allowAllWrites(): Grants {
  const g = emptyGrants();
  g.allow.write.workspace = true;
  return g;
}

/**
 * Everything that could stop the write, except the workspace boundary, is out
 * of the way: every write allowed, an approver that says yes to anything, and
 * the outside files recorded as read. Rows naming this machine's real files
 * get no grants and a refusing approver instead (see EscapeAttempt.realFile).
 */
export function escapeContext(f: EscapeFixture, attempt: EscapeAttempt): TestContext {
  const ctx = attempt.realFile
    ? makeContext(f.root)
    : makeContext(f.root, { grants: allowAllWrites(), answers: Array(5).fill({ answer: "once" }) });
  for (const p of f.outsideFiles) ctx.session.recordRead(p, readFileSync(p));
  return ctx;
}

/**
 * One test per escape-table row, over one fixture: `attempt` tries the write
 * and checks its own result; then nobody was asked and nothing outside changed.
 */
export function testEscapes(attempt: (f: EscapeFixture, row: EscapeAttempt, ctx: TestContext) => Promise<void>): void {
  eachEscape(async (f, row) => {
    const ctx = escapeContext(f, row);
    const before = f.snapshot();
    await attempt(f, row, ctx);
    expect(ctx.approver.asked).toHaveLength(0);
    expect(f.snapshot()).toEqual(before);
  });
}
