/**
 * What a user does in VS Code, for the stories: the palette, keys, the clipboard, toasts,
 * tabs, the refactor preview, code actions and lenses; and what they would check afterwards:
 * the editor's text (copied out as a user would), the status bar, and the disk (`git status`
 * of the story's workspace, which starts as a fresh repository with examples/shop in it).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const squash = (s) => s.replace(/\s+/g, " ").trim();

export class VSCode {
  constructor({ page, base, ws, repo, data, shots, story }) {
    this.page = page;
    this.base = base;
    this.ws = ws;
    this.repo = repo;
    this.data = data;
    this.shots = shots;
    this.story = story;
    this.keyboard = page.keyboard;
  }

  sleep(ms) {
    return sleep(ms);
  }

  // ---- the workspace on disk -----------------------------------------------------------------

  /** A fresh copy of examples/shop (plus `files`) committed to a new git repository. */
  makeWorkspace(files) {
    fs.rmSync(this.ws, { recursive: true, force: true });
    fs.cpSync(path.join(this.repo, "examples", "shop"), this.ws, { recursive: true });
    for (const [rel, text] of Object.entries(files)) this.write(rel, text);
    const git = (...args) => execFileSync("git", args, { cwd: this.ws, stdio: "ignore" });
    git("init", "-q");
    git("add", "-A");
    git("-c", "user.email=e2e@example.invalid", "-c", "user.name=e2e", "commit", "-qm", "start");
  }

  write(rel, text) {
    fs.mkdirSync(path.dirname(path.join(this.ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(this.ws, rel), text);
  }

  /** The file's bytes on disk, or null when there is no such file. */
  disk(rel) {
    const p = path.join(this.ws, rel);
    return fs.existsSync(p) ? fs.readFileSync(p, "utf8") : null;
  }

  /** `git status --short` of the workspace: every file that changed on disk. */
  gitStatus() {
    return execFileSync("git", ["status", "--short", "--untracked-files=all"], { cwd: this.ws }).toString().trim();
  }

  /** The committed text of a file (as the story started). */
  original(rel) {
    return execFileSync("git", ["show", `HEAD:${rel}`], { cwd: this.ws }).toString();
  }

  // ---- the window ------------------------------------------------------------------------------

  async openWorkspace(titleMark) {
    await this.page.goto(`${this.base}/?folder=${encodeURIComponent(this.ws)}`);
    await this.page.waitForSelector(".monaco-workbench .part.statusbar", { timeout: 60000 });
    await this.waitFor("the explorer", async () => (await this.page.$(".explorer-folders-view .monaco-list-row")) !== null, 30000);
    // On a busy machine the window can come up before it has read the user's settings (the
    // server's path among them): wait until its title shows one of them.
    await this.waitFor("the user settings to be read", async () => (await this.page.title()).startsWith(titleMark), 30000);
  }

  /** Trusts the folder (Restricted Mode's banner leads to the same page: Manage → Trust). */
  async trustFolder() {
    await this.command("Workspaces: Manage Workspace Trust");
    const button = this.page.locator(".workspace-trust-editor .monaco-button", { hasText: /^Trust( Folder)?$/ }).first();
    await button.waitFor({ timeout: 10000 });
    await button.click();
    await sleep(500);
  }

  async shot(name) {
    fs.mkdirSync(this.shots, { recursive: true });
    const file = path.join(this.shots, `${this.story.replace(/[^a-z0-9]+/gi, "-")}-${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /** A failed story's evidence: a screenshot, the toasts and the status bar, the extension's log. */
  async keepEvidence() {
    const png = await this.shot("failure");
    const facts = {
      toasts: await this.toasts().catch(() => []),
      status: await this.statusBar().catch(() => []),
      tabs: await this.tabs().catch(() => []),
      git: (() => {
        try {
          return this.gitStatus();
        } catch {
          return "";
        }
      })(),
      log: this.extensionLog(),
    };
    fs.writeFileSync(png.replace(/\.png$/, ".json"), JSON.stringify(facts, null, 2));
    return png;
  }

  /** Polls `probe` until it returns a truthy value. */
  async waitFor(what, probe, ms = 15000) {
    const t0 = Date.now();
    let last;
    for (;;) {
      try {
        last = await probe();
        if (last) return last;
      } catch (e) {
        last = e;
      }
      if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
      await sleep(200);
    }
  }

  // ---- keys, palette, clipboard ------------------------------------------------------------

  async press(key) {
    await this.page.keyboard.press(key);
  }

  async type(text) {
    await this.page.keyboard.type(text, { delay: 5 });
  }

  async escape() {
    await this.page.keyboard.press("Escape");
    await sleep(100);
  }

  /** Closes the palette or a menu when one is open (Escape in an editor would drop its selection). */
  async closeWidgets() {
    const open = await this.page.$(".quick-input-widget:not([style*='display: none']), .context-view .monaco-menu, .action-widget");
    if (open && (await open.isVisible())) await this.escape();
  }

  /** Opens the command palette and types `text`. */
  async palette(text) {
    for (let attempt = 0; attempt < 5; attempt++) {
      await this.closeWidgets();
      await this.page.keyboard.press("F1");
      try {
        await this.page.waitForFunction(
          () => document.activeElement?.closest(".quick-input-widget") && document.activeElement.tagName === "INPUT",
          null,
          { timeout: 3000 },
        );
      } catch {
        continue;
      }
      await this.page.keyboard.type(text, { delay: 2 });
      await sleep(400);
      return;
    }
    throw new Error("the command palette did not open");
  }

  /** The palette's rows for `text` (then closes it). */
  async paletteRows(text) {
    await this.palette(text);
    const rows = await this.page.$$eval(".quick-input-list .monaco-list-row", (els) => els.map((e) => e.getAttribute("aria-label") || e.innerText));
    await this.escape();
    return rows.map(squash);
  }

  /**
   * Runs a command by its palette title (`LLM Patch: Apply from Clipboard`). An extension's
   * commands join the palette once VS Code has read its manifest, a moment after the window
   * opens (longer on a busy machine): a user who does not find it yet looks again.
   */
  async command(title, ms = 20000) {
    const t0 = Date.now();
    for (;;) {
      await this.palette(title);
      for (let i = 0; i < 20; i++) {
        const label = await this.page
          .$eval(".quick-input-list .monaco-list-row.focused", (e) => e.getAttribute("aria-label") || e.innerText)
          .catch(() => "");
        if (label && squash(label).startsWith(title)) {
          await this.page.keyboard.press("Enter");
          await sleep(200);
          return;
        }
        await this.page.keyboard.press("ArrowDown");
        await sleep(40);
      }
      await this.escape();
      if (Date.now() - t0 > ms) throw new Error(`not in the palette: ${title}`);
      await sleep(1000);
    }
  }

  async setClipboard(text) {
    await this.page.bringToFront();
    await this.page.evaluate((t) => navigator.clipboard.writeText(t), text);
  }

  async clipboard() {
    return this.page.evaluate(() => navigator.clipboard.readText());
  }

  // ---- editors -------------------------------------------------------------------------------

  /** Opens a workspace file with Quick Open (Ctrl+P), as a user would. */
  async open(rel) {
    await this.escape();
    await this.page.keyboard.press("Control+p");
    await this.page.waitForFunction(() => document.activeElement?.closest(".quick-input-widget"), null, { timeout: 5000 });
    await this.page.keyboard.type(rel, { delay: 2 });
    const name = path.basename(rel);
    await this.waitFor(`${rel} in Quick Open`, async () => {
      const label = await this.page.$eval(".quick-input-list .monaco-list-row.focused", (e) => e.getAttribute("aria-label") || "").catch(() => "");
      return label.includes(name);
    });
    await this.page.keyboard.press("Enter");
    await this.waitFor(`${rel} to be the active editor`, async () => (await this.activeTab())?.startsWith(name));
    await this.focusEditor();
  }

  async focusEditor() {
    await this.page.click(".editor-group-container.active .monaco-editor .view-lines", { position: { x: 400, y: 5 } }).catch(() => {});
    await this.page.keyboard.press("Control+Home");
  }

  async activeTab() {
    return this.page.$eval(".editor-group-container.active .tab.active", (e) => e.getAttribute("aria-label") || "").catch(() => undefined);
  }

  /** Every open tab: `{ name, dirty }`. */
  async tabs() {
    return this.page.$$eval(".tabs-container .tab", (els) =>
      els.map((e) => ({ name: (e.querySelector(".label-name")?.textContent ?? "").trim(), dirty: e.classList.contains("dirty"), label: e.getAttribute("aria-label") })),
    );
  }

  async focusTab(name) {
    await this.page.locator(".tabs-container .tab", { hasText: name }).first().click();
    await sleep(200);
  }

  /** The active editor's whole text, copied out with Ctrl+A Ctrl+C (the clipboard is put back after). */
  async editorText() {
    await this.page.focus(".editor-group-container.active .monaco-editor textarea").catch(() => {});
    const saved = await this.clipboard();
    await this.page.evaluate(() => navigator.clipboard.writeText("\u0000"));
    await this.page.keyboard.press("Control+a");
    await this.page.keyboard.press("Control+c");
    const text = await this.waitFor("the editor's text on the clipboard", async () => {
      const t = await this.clipboard();
      return t === "\u0000" ? undefined : { t };
    }, 5000);
    await this.page.keyboard.press("Control+Home");
    await this.setClipboard(saved);
    return text.t.replace(/\r\n/g, "\n");
  }

  /** A new untitled editor holding `text` (pasted, as a user would). */
  async newUntitled(text) {
    await this.command("File: New Untitled Text File");
    await this.waitFor("an untitled editor", async () => (await this.activeTab())?.startsWith("Untitled"));
    await this.setClipboard(text);
    await this.page.focus(".editor-group-container.active .monaco-editor textarea");
    await this.page.keyboard.press("Control+v");
    await sleep(300);
  }

  /** Selects lines `from`..`to` (1-based, inclusive) of the active editor with the keyboard. */
  async selectLines(from, to) {
    await this.gotoLine(from);
    await this.page.keyboard.press("Home");
    await this.page.keyboard.press("Home");
    for (let i = from; i <= to; i++) await this.page.keyboard.press("Shift+ArrowDown");
  }

  async gotoLine(n) {
    await this.page.keyboard.press("Control+g");
    await sleep(150);
    await this.page.keyboard.type(String(n));
    await this.page.keyboard.press("Enter");
    await sleep(150);
  }

  /** Right-clicks `name` in the Explorer and picks `item` from its context menu. */
  async explorerMenu(name, item) {
    const row = this.page.locator(".explorer-folders-view .monaco-list-row", { hasText: name }).first();
    const entry = this.page.locator(".context-view .action-item .action-label", { hasText: item }).first();
    // The menu holds an extension's items once VS Code has read its manifest, which it does
    // a moment after the window opens: a user who right-clicks that early sees them next time.
    for (let attempt = 0; ; attempt++) {
      await row.click({ button: "right" });
      try {
        await entry.waitFor({ timeout: 1500 });
        break;
      } catch (e) {
        await this.escape();
        if (attempt === 10) throw e;
        await sleep(1000);
      }
    }
    // Menus act on the keyboard as on the mouse; the keys do not depend on where it lands.
    for (let i = 0; i < 30; i++) {
      const focused = await this.page.$eval(".context-view .action-item.focused .action-label", (e) => e.textContent ?? "").catch(() => "");
      if (focused.includes(item)) {
        await this.page.keyboard.press("Enter");
        await sleep(200);
        return;
      }
      await this.page.keyboard.press("ArrowDown");
      await sleep(30);
    }
    throw new Error(`could not reach ${item} in the menu`);
  }

  // ---- what VS Code shows ------------------------------------------------------------------

  async toasts() {
    return this.page.$$eval(".notifications-toasts .notification-toast", (els) => els.map((e) => e.innerText.replace(/\s+/g, " ").trim()));
  }

  /** Waits for a notification matching `re`; returns its text. */
  async toast(re, ms = 30000) {
    return this.waitFor(`a notification matching ${re}`, async () => (await this.toasts()).find((t) => re.test(t)), ms);
  }

  /** Clicks the button `label` on the notification matching `re`. */
  async clickToast(re, label) {
    await this.toast(re);
    const toast = this.page.locator(".notifications-toasts .notification-toast", { hasText: re }).first();
    await toast.locator(".monaco-button", { hasText: label }).first().click();
    await sleep(200);
  }

  /** The text of VS Code's modal dialog ("" when none is open). */
  async dialogText() {
    return this.page
      .$$eval(".monaco-dialog-box", (els) => els.map((e) => e.innerText.replace(/\s+/g, " ").trim()).join(" "))
      .catch(() => "");
  }

  /** Clicks the button matching `re` on VS Code's modal dialog. */
  async dialogButton(re, ms = 5000) {
    const button = this.page.locator(".monaco-dialog-box .dialog-buttons .monaco-button", { hasText: re }).first();
    await button.waitFor({ timeout: ms });
    await button.click();
    await sleep(300);
  }

  async clearToasts() {
    await this.command("Notifications: Clear All Notifications").catch(() => {});
    await sleep(200);
  }

  async statusBar() {
    return this.page.$$eval(".part.statusbar .statusbar-item", (els) =>
      els.map((e) => ({ id: e.id, text: e.innerText.trim(), label: e.getAttribute("aria-label") ?? "" })),
    );
  }

  /** The extension's status bar item: `{ text, label }`. */
  async status() {
    const items = await this.statusBar();
    return items.find((i) => i.id.includes("llmPatch.status"));
  }

  /** The code lenses above the reply's blocks (the extension's ✓/✗ lines). */
  async lenses() {
    return this.page.$$eval(".editor-group-container.active .codelens-decoration", (els) => els.map((e) => e.innerText.trim()).filter(Boolean));
  }

  /** Clicks the code lens whose text matches `re`. */
  async clickLens(re) {
    const lens = this.page.locator(".editor-group-container.active .codelens-decoration a", { hasText: re }).first();
    await lens.waitFor({ timeout: 15000 });
    await lens.click();
    await sleep(200);
  }

  /** Opens the code-action menu (Ctrl+.) at the cursor; returns its rows. */
  async codeActions() {
    // The server may be slow to answer on a busy machine; VS Code then shows nothing, and a
    // user presses the key again.
    for (let attempt = 0; ; attempt++) {
      await this.page.keyboard.press("Control+.");
      try {
        await this.page.waitForSelector(".action-widget .monaco-list-row.action", { timeout: 8000 });
        break;
      } catch (e) {
        if (attempt === 3) throw e;
        await this.escape();
      }
    }
    await sleep(300);
    return this.page.$$eval(".action-widget .monaco-list-row.action", (els) => els.map((e) => (e.getAttribute("aria-label") || e.innerText).replace(/\s+/g, " ").trim()));
  }

  /** Picks the open code-action menu's row containing `text`. */
  async pickCodeAction(text) {
    for (let i = 0; i < 25; i++) {
      const focused = await this.page.$eval(".action-widget .monaco-list-row.focused", (e) => e.getAttribute("aria-label") || e.innerText).catch(() => "");
      if (squash(focused).includes(text)) {
        await this.page.keyboard.press("Enter");
        await sleep(300);
        return;
      }
      await this.page.keyboard.press("ArrowDown");
      await sleep(50);
    }
    throw new Error(`no code action ${text}`);
  }

  /** The markers of the Problems panel for the active editor's file, as text. */
  async problems() {
    await this.command("View: Focus Problems (Errors, Warnings, Infos)");
    await this.waitFor("the Problems panel", async () => (await this.page.$(".markers-panel")) !== null);
    await sleep(300);
    const rows = await this.page.$$eval(".markers-panel .monaco-list-row", (els) => els.map((e) => (e.getAttribute("aria-label") || e.innerText).replace(/\s+/g, " ").trim()));
    return rows;
  }

  /** The refactor preview's rows: `{ text, checked }` (checked is undefined for rows without a box). */
  async previewRows() {
    return this.page.$$eval(".bulk-edit-panel .monaco-list-row", (els) =>
      els.map((e) => {
        const box = e.querySelector(".monaco-custom-toggle, input[type=checkbox]");
        const checked = box ? box.classList.contains("checked") || box.checked === true || box.getAttribute("aria-checked") === "true" : undefined;
        return { text: e.innerText.replace(/\s+/g, " ").trim(), checked };
      }),
    );
  }

  async waitPreview() {
    await this.waitFor("the refactor preview", async () => (await this.previewRows()).length > 0, 20000);
    await sleep(400);
  }

  /** Ticks or unticks the preview row whose text contains `text`. */
  async togglePreviewRow(text) {
    const row = this.page.locator(".bulk-edit-panel .monaco-list-row", { hasText: text }).first();
    await row.locator(".monaco-custom-toggle, input[type=checkbox]").first().click();
    await sleep(200);
  }

  async previewButton(label) {
    await this.page.locator(".bulk-edit-panel .monaco-button", { hasText: label }).first().click();
    await sleep(400);
  }

  // ---- the extension's log -------------------------------------------------------------------

  /** The extension's output channel, as VS Code writes it to disk for this window. */
  extensionLog() {
    const logs = path.join(this.data, "logs");
    if (!fs.existsSync(logs)) return "";
    const found = [];
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name === "LLM Patch.log") found.push(p);
      }
    };
    walk(logs);
    found.sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs);
    return found.length ? fs.readFileSync(found.at(-1), "utf8") : "";
  }
}

export { assert, sleep };
