// Version and commit of this build. `scripts/build.ts` compiles the binary
// with `--define BUNKER_VERSION=… --define BUNKER_COMMIT=…`; when run from
// source (`bun run src/main.ts`) they are undefined and we fall back to the
// package.json version and "dev".
import packageJson from "../package.json" with { type: "json" };

declare const BUNKER_VERSION: string | undefined;
declare const BUNKER_COMMIT: string | undefined;

/** The bunker version, e.g. "0.1.0". */
export const version: string =
  typeof BUNKER_VERSION === "string" ? BUNKER_VERSION : packageJson.version;

/** The git commit the binary was built from (short hash, "-dirty" if the tree had changes), or "dev" from source. */
export const commit: string = typeof BUNKER_COMMIT === "string" ? BUNKER_COMMIT : "dev";
