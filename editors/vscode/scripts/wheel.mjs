// Builds the server's wheel into server/ for the .vsix (`npm run package` runs this first):
// llm-patch is not on a package index, so the one-click install installs this file.
//
// The Python that builds it: $LLM_PATCH_PYTHON, else the repository's .venv, else python3 /
// python on PATH. `pip wheel` fetches the build backend (hatchling) into an isolated build
// environment, so the Python needs pip and nothing else.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const extensionDir = path.resolve(here, "..");
const repoRoot = path.resolve(extensionDir, "..", "..");
const outDir = path.join(extensionDir, "server");

function findPython() {
  const venv = path.join(repoRoot, ".venv", process.platform === "win32" ? "Scripts/python.exe" : "bin/python");
  for (const candidate of [process.env.LLM_PATCH_PYTHON, venv, "python3", "python"]) {
    if (!candidate || (path.isAbsolute(candidate) && !existsSync(candidate))) {
      continue;
    }
    try {
      execFileSync(candidate, ["-m", "pip", "--version"], { stdio: "ignore" });
      return candidate;
    } catch {
      // not a Python with pip: try the next one
    }
  }
  throw new Error("no Python with pip to build the server's wheel (set LLM_PATCH_PYTHON)");
}

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const python = findPython();
execFileSync(
  python,
  ["-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "--quiet", "--wheel-dir", outDir, repoRoot],
  { stdio: "inherit" },
);
const wheels = readdirSync(outDir).filter((f) => /^llm_patch-.+-py3-none-any\.whl$/.test(f));
if (wheels.length !== 1) {
  throw new Error(`expected one llm_patch wheel in ${outDir}, found: ${readdirSync(outDir).join(", ") || "nothing"}`);
}
console.log(`server wheel: server/${wheels[0]} (built with ${python})`);
