// Preloaded (bunfig.toml): after the whole run (once per test process), the
// temp directories made through tempDir() are removed.
import { afterAll } from "bun:test";
import { removeAll } from "./temp-dirs.ts";

afterAll(removeAll);
