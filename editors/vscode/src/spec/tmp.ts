/**
 * Temporary folders for the node tests, each removed when its test file finishes: a test
 * run must leave nothing in the system temp directory (editors/ci.sh and
 * tests/editors/test_vscode.py run the tests with a private TMPDIR and fail on leftovers).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after } from "node:test";

const made: string[] = [];

// Registered when the test file imports this module: the root suite's hook runs after every
// test and every describe's own `after` (which stops servers working in these folders).
after(removeTempDirs);

/** A new folder `<tmp>/<prefix>XXXXXX`, removed with everything in it after this file's tests. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder `tempDir` made so far (also usable in afterEach). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) {
    rmSync(dir, { recursive: true, force: true });
  }
}
