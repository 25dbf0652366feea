// Which words of a prompt name an image to attach.
import { describe, expect, test } from "bun:test";
import { findImageMentions } from "../../../src/agent/attachments.ts";

const paths = (prompt: string) => findImageMentions(prompt).map((m) => `${m.explicit ? "@" : ""}${m.path}`);

describe("findImageMentions", () => {
  test("@path anywhere, relative or absolute, without the sentence's punctuation", () => {
    expect(paths("what is wrong in @shot.png? compare (@ui/after.JPG), then @a.webp.")).toEqual(["@shot.png", "@ui/after.JPG", "@a.webp"]);
  });

  test("pasted absolute and ~/ paths: bare, quoted, or with escaped spaces", () => {
    expect(paths(`see /tmp/a.png and '/home/me/My Shots/b.gif' and "/x y/c.jpeg" and /srv/my\\ dir/d.png, ~/e.webp`)).toEqual([
      "/tmp/a.png", "/home/me/My Shots/b.gif", "/x y/c.jpeg", "/srv/my dir/d.png", "~/e.webp",
    ]);
  });

  test("not an attachment: relative paths without @, other extensions, e-mail-like words, repeats", () => {
    expect(paths("fix img/logo.png and @notes.md; mail me@host.png-free.com; url http://x.org/a.png")).toEqual([]);
    expect(paths("@a.png then @a.png again")).toEqual(["@a.png"]);
  });
});
