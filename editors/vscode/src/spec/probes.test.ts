import assert from "node:assert/strict";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

import { llmPatchVersion, pythonVersion, runStep, which } from "../probes";
import { tempDir } from "./tmp";

// out/spec → editors/vscode → editors → repo root
const repoRoot = path.resolve(__dirname, "..", "..", "..", "..");
const repoPython = path.join(repoRoot, ".venv", "bin", "python");

describe("which", () => {
  it("finds only executable files, in PATH order", async () => {
    const a = tempDir("which-a-");
    const b = tempDir("which-b-");
    writeFileSync(path.join(a, "llm-patch"), "not executable");
    writeFileSync(path.join(b, "llm-patch"), "#!/bin/sh\n");
    chmodSync(path.join(b, "llm-patch"), 0o755);
    assert.equal(await which("llm-patch", `${a}:${b}`, "linux"), path.join(b, "llm-patch"));
    assert.equal(await which("missing", `${a}:${b}`, "linux"), undefined);
    assert.equal(await which(path.join(b, "llm-patch"), "", "linux"), path.join(b, "llm-patch"));
    assert.equal(await which(path.join(a, "llm-patch"), "", "linux"), undefined);
  });
});

describe("python probes (real processes)", () => {
  it("reads the llm-patch version from the project's virtual environment", { skip: !existsSync(repoPython) && "no .venv in this checkout" }, async () => {
    const version = await llmPatchVersion([repoPython]);
    assert.match(version ?? "", /^\d+\.\d+/);
    assert.match((await pythonVersion([repoPython])) ?? "", /^3\.\d+\.\d+$/);
  });

  it("says undefined for a python without llm-patch and for a missing program", async () => {
    const bare = tempDir("bare-python-");
    const fake = path.join(bare, "python");
    // A "python" that runs but has no llm-patch: the probe script exits 1.
    writeFileSync(fake, "#!/bin/sh\nexit 1\n");
    chmodSync(fake, 0o755);
    assert.equal(await llmPatchVersion([fake]), undefined);
    assert.equal(await llmPatchVersion([path.join(bare, "nothing-here")]), undefined);
  });
});

describe("runStep", () => {
  it("streams every output line and returns the exit code", async () => {
    const lines: string[] = [];
    const result = await runStep("sh", ["-c", "echo one; echo two 1>&2; printf three; exit 3"], (l) => lines.push(l));
    assert.equal(result.code, 3);
    assert.deepEqual([...lines].sort(), ["one", "three", "two"]);
    assert.match(result.tail, /three$/);
  });

  it("can be cancelled", async () => {
    let kill: (() => void) | undefined;
    const pending = runStep("sh", ["-c", "sleep 30"], () => undefined, (k) => {
      kill = k;
    });
    kill?.();
    const result = await pending;
    assert.notEqual(result.code, 0);
  });

  it("reports a program that cannot start", async () => {
    const result = await runStep("/definitely/not/here", [], () => undefined);
    assert.equal(result.code, null);
    assert.match(result.tail, /ENOENT/);
  });
});
