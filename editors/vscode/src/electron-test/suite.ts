/**
 * Runs inside a real VS Code (see runTest.ts): the extension activates, finds the server from
 * the workspace's `llmPatch.server.interpreter`, applies a reply, and one undo reverts it.
 */
import assert from "node:assert/strict";

import * as vscode from "vscode";

import type { LlmPatchApi } from "../extension";

const reply = [
  "src/app.py",
  "```python",
  "<<<<<<< SEARCH",
  'def greet(name):',
  '    return "hi " + name',
  "=======",
  "def greet(name):",
  '    return f"Hello, {name}!"',
  ">>>>>>> REPLACE",
  "```",
  "",
].join("\n");

async function waitFor<T>(what: string, get: () => T | undefined, timeoutMs = 30000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = get();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const tests: [string, () => Promise<void>][] = [];
const test = (name: string, fn: () => Promise<void>) => tests.push([name, fn]);

let api: LlmPatchApi;

test("activates and registers its commands", async () => {
  const ext = vscode.extensions.getExtension<LlmPatchApi>("llm-patch.llm-patch");
  assert.ok(ext, "extension not found");
  api = await ext.activate();
  const commands = await vscode.commands.getCommands(true);
  for (const id of ["llmPatch.applyFromClipboard", "llmPatch.applySelection", "llmPatch.openClipboardAsReply", "llmPatch.checkClipboard", "llmPatch.showLastReport"]) {
    assert.ok(commands.includes(id), id);
  }
  await waitFor("the server", () => api.server);
  assert.equal(api.server?.source, "setting:interpreter");
});

test("applies a reply from the clipboard, and one undo reverts it", async () => {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder);
  const uri = vscode.Uri.joinPath(folder.uri, "src", "app.py");
  const doc = await vscode.workspace.openTextDocument(uri);
  const before = doc.getText();
  await vscode.window.showTextDocument(doc);
  await vscode.env.clipboard.writeText(reply);
  await vscode.commands.executeCommand("llmPatch.applyFromClipboard");
  const report = await waitFor("a report", () => api.lastReport);
  assert.equal(report.ok, true, JSON.stringify(report));
  assert.match(doc.getText(), /return f"Hello, \{name\}!"/);
  await vscode.commands.executeCommand("undo");
  assert.equal(doc.getText(), before);
});

test("Undo Last Patch puts the file back in one step, and refuses after a later change", async () => {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder);
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder.uri, "src", "app.py"));
  const before = doc.getText();
  const report = await api.applyText(reply);
  assert.equal(report?.ok, true, JSON.stringify(report));
  assert.notEqual(doc.getText(), before);
  assert.equal(await vscode.commands.executeCommand("llmPatch.undoLastPatch"), true);
  assert.equal(doc.getText(), before);

  await api.applyText(reply);
  const editor = await vscode.window.showTextDocument(doc);
  await editor.edit((b) => b.insert(new vscode.Position(0, 0), "# later\n"));
  assert.equal(await vscode.commands.executeCommand("llmPatch.undoLastPatch"), false);
  assert.match(doc.getText(), /^# later\n/);
  await vscode.commands.executeCommand("workbench.action.files.revert");
});

test("Check Clipboard changes nothing", async () => {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder);
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder.uri, "src", "app.py"));
  const before = doc.getText();
  const report = await api.checkText(reply);
  assert.equal(report?.ok, true);
  assert.equal(doc.getText(), before);
});

export async function run(): Promise<void> {
  const failures: string[] = [];
  for (const [name, fn] of tests) {
    try {
      await fn();
      console.log(`ok - ${name}`);
    } catch (error) {
      console.log(`FAIL - ${name}: ${String(error)}`);
      failures.push(name);
    }
  }
  console.log(`${tests.length - failures.length} passed, ${failures.length} failed`);
  if (failures.length > 0) {
    throw new Error(`${failures.length} real-editor test(s) failed`);
  }
}
