// The home folder without node:os: $HOME when it says, else what os.homedir() finds.
import { afterEach, expect, test } from "bun:test";
import { homedir as osHomedir } from "node:os";
import { homedir, xdgConfigHome } from "../../../src/fs/home.ts";

const saved = process.env.HOME;
afterEach(() => {
  process.env.HOME = saved;
});

test("$HOME when it is set and not empty", () => {
  process.env.HOME = "/home/someone else";
  expect(homedir()).toBe("/home/someone else");
});

test("an empty or missing $HOME: the user database's, as os.homedir() finds it", () => {
  process.env.HOME = "";
  expect(homedir()).toBe(osHomedir());
  delete process.env.HOME;
  expect(homedir()).toBe(osHomedir());
  expect(homedir()).not.toBe("");
});

test("the config folder: $XDG_CONFIG_HOME when absolute, else HOME/.config (a relative one is ignored, as the XDG spec says)", () => {
  expect(xdgConfigHome({ XDG_CONFIG_HOME: "/cfg" }, "/home/a")).toBe("/cfg");
  expect(xdgConfigHome({ XDG_CONFIG_HOME: "cfg" }, "/home/a")).toBe("/home/a/.config");
  expect(xdgConfigHome({ XDG_CONFIG_HOME: "" }, "/home/a")).toBe("/home/a/.config");
  expect(xdgConfigHome({}, "/home/a")).toBe("/home/a/.config");
});
