/**
 * Real-editor tests: downloads VS Code with @vscode/test-electron, opens a throwaway project
 * with the extension under development, and runs ./suite inside it. Not run in CI (VS Code
 * cannot be downloaded there); run with `npm run test:electron` where it can.
 *
 * LLM_PATCH_PYTHON: a Python with llm-patch installed (default: the repository's .venv).
 * VSCODE_VERSION: which VS Code to download (default: stable; try 1.91.0 for the minimum).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

import { runTests } from "@vscode/test-electron";

async function main(): Promise<void> {
  const extensionDevelopmentPath = path.resolve(__dirname, "..", "..");
  const extensionTestsPath = path.resolve(__dirname, "suite");
  const repoRoot = path.resolve(extensionDevelopmentPath, "..", "..");
  const python = process.env.LLM_PATCH_PYTHON ?? path.join(repoRoot, ".venv", "bin", "python");

  const workspace = mkdtempSync(path.join(tmpdir(), "llm-patch-electron-"));
  mkdirSync(path.join(workspace, "src"));
  mkdirSync(path.join(workspace, ".vscode"));
  writeFileSync(path.join(workspace, "src", "app.py"), 'def greet(name):\n    return "hi " + name\n');
  writeFileSync(
    path.join(workspace, ".vscode", "settings.json"),
    JSON.stringify({ "llmPatch.server.interpreter": python }, null, 2),
  );

  try {
    await runTests({
      version: process.env.VSCODE_VERSION ?? "stable",
      extensionDevelopmentPath,
      extensionTestsPath,
      launchArgs: [workspace, "--disable-extensions", "--skip-welcome", "--skip-release-notes"],
    });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
