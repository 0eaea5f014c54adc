import assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";

import { RestartPolicy } from "../crash";
import { bundledWheel, installSource, installSteps, isSupportedPython, parsePythonVersion, pickBasePython, venvDir, venvPython } from "../install";

describe("install plan", () => {
  it("puts the venv in global storage and finds its python per platform", () => {
    assert.equal(venvDir("/home/u/.config/Code/globalStorage/llm-patch.llm-patch"), "/home/u/.config/Code/globalStorage/llm-patch.llm-patch/server-venv");
    assert.equal(venvPython("/s/server-venv", "linux"), "/s/server-venv/bin/python");
    assert.equal(venvPython("C:\\s\\server-venv", "win32"), "C:\\s\\server-venv\\Scripts\\python.exe");
  });

  it("creates the venv with the base python, then pip-installs the source into it", () => {
    const steps = installSteps(["py", "-3.12"], "/s/server-venv", "llm-patch==0.1.0", "linux");
    assert.deepEqual(
      steps.map((s) => [s.command, ...s.args]),
      [
        ["py", "-3.12", "-m", "venv", "--clear", "/s/server-venv"],
        ["/s/server-venv/bin/python", "-m", "pip", "install", "--disable-pip-version-check", "--upgrade", "llm-patch==0.1.0"],
      ],
    );
    assert.match(steps[1].title, /Installing llm-patch==0\.1\.0/);
  });

  it("finds the newest server wheel the extension carries, and nothing else", () => {
    const dir = "/ext";
    assert.equal(
      bundledWheel(dir, ["README", "llm_patch-0.9.0-py3-none-any.whl", "llm_patch-0.10.1-py3-none-any.whl", "other-1.0-py3-none-any.whl"]),
      path.join(dir, "server", "llm_patch-0.10.1-py3-none-any.whl"),
    );
    assert.equal(bundledWheel(dir, ["llm_patch-0.1.0.tar.gz", "llm_patch-0.1.0-cp311-cp311-linux_x86_64.whl"]), undefined);
    assert.equal(bundledWheel(dir, []), undefined);
  });

  it("installs the setting when set, else the bundled wheel", () => {
    assert.equal(installSource("  ", "/ext/server/w.whl"), "/ext/server/w.whl");
    assert.equal(installSource(" /src/llm-patch ", "/ext/server/w.whl"), "/src/llm-patch");
    assert.equal(installSource("", undefined), undefined);
    const steps = installSteps(["python3"], "/s/v", "/ext/server/llm_patch-0.1.0-py3-none-any.whl", "linux");
    assert.equal(steps[1].title, "Installing llm_patch-0.1.0-py3-none-any.whl");
    assert.equal(steps[1].args.at(-1), "/ext/server/llm_patch-0.1.0-py3-none-any.whl");
  });

  it("parses python versions and enforces 3.11+", () => {
    assert.deepEqual(parsePythonVersion("3.12.1\n"), [3, 12]);
    assert.equal(parsePythonVersion("Python"), undefined);
    assert.equal(isSupportedPython([3, 11]), true);
    assert.equal(isSupportedPython([3, 10]), false);
    assert.equal(isSupportedPython([4, 0]), true);
    assert.equal(isSupportedPython([2, 99]), false);
    assert.equal(isSupportedPython(undefined), false);
  });

  it("picks the first new-enough python and says why others were skipped", async () => {
    const versions: Record<string, string | undefined> = { "/old/python": "3.9.18", "/new/python": "3.12.0" };
    const asked: string[] = [];
    const choice = await pickBasePython([["/broken"], ["/old/python"], ["/old/python"], ["/new/python"], ["/newer"]], async (p) => {
      asked.push(p[0]);
      return versions[p[0]];
    });
    assert.deepEqual(choice.python, ["/new/python"]);
    assert.deepEqual(choice.rejected, ["/broken did not run", "/old/python is Python 3.9; llm-patch needs 3.11+"]);
    assert.deepEqual(asked, ["/broken", "/old/python", "/new/python"], "duplicates are not probed twice, later ones not at all");
  });

  it("returns no python when none fits", async () => {
    const choice = await pickBasePython([], async () => "3.12.0");
    assert.equal(choice.python, undefined);
  });
});

describe("RestartPolicy", () => {
  it("restarts with a visible message, up to the limit inside the window", () => {
    let now = 0;
    const policy = new RestartPolicy(2, 60_000, () => now);
    const first = policy.onCrash();
    assert.equal(first.restart, true);
    assert.match(first.message, /restarting it \(restart 1 of 2 allowed in 1 minutes\)/);
    now = 10_000;
    assert.equal(policy.onCrash().restart, true);
    now = 20_000;
    const third = policy.onCrash();
    assert.equal(third.restart, false);
    assert.match(third.message, /crashed 3 times in 1 minutes and was not restarted/);
  });

  it("forgets crashes older than the window", () => {
    let now = 0;
    const policy = new RestartPolicy(1, 60_000, () => now);
    assert.equal(policy.onCrash().restart, true);
    now = 61_000;
    assert.equal(policy.onCrash().restart, true);
    now = 62_000;
    assert.equal(policy.onCrash().restart, false);
  });

  it("starts afresh after a deliberate restart", () => {
    const policy = new RestartPolicy(1, 60_000, () => 5);
    policy.onCrash();
    policy.reset();
    assert.equal(policy.onCrash().restart, true);
  });
});
