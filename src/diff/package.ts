// The diff package's two functions bunker uses, as an ES module of its own:
// `require`d where a diff is made (preview.ts, diff-view.ts), it is built into
// a chunk of its own, so a turn that shows no diff does not even load its code.
export { diffArrays, structuredPatch } from "diff";
