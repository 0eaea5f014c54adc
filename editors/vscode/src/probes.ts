/**
 * The real machine behind discovery's probes: PATH lookup, "which llm-patch does this Python
 * have", running install steps. Node only (no `vscode`), so tests run it for real against the
 * project's own virtual environment.
 */
import { execFile, spawn } from "node:child_process";
import { constants as fsConstants, promises as fs } from "node:fs";
import * as path from "node:path";

import { VERSION_PROBE_SCRIPT, type Probes } from "./discovery";

const PROBE_TIMEOUT_MS = 15000;

async function isExecutable(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) {
      return false;
    }
    if (process.platform === "win32") {
      return true;
    }
    await fs.access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Like `which`: the first executable called `name` in `envPath`. */
export async function which(
  name: string,
  envPath: string = process.env.PATH ?? "",
  platform: NodeJS.Platform = process.platform,
): Promise<string | undefined> {
  if (name.includes("/") || (platform === "win32" && name.includes("\\"))) {
    return (await isExecutable(name)) ? name : undefined;
  }
  const exts =
    platform === "win32"
      ? ["", ...(process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";").map((e) => e.toLowerCase())]
      : [""];
  const sep = platform === "win32" ? ";" : ":";
  for (const dir of envPath.split(sep)) {
    if (!dir) {
      continue;
    }
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (await isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/** Runs a command with a time limit; resolves to stdout, or undefined when it failed. */
export function runForOutput(command: string, args: string[], timeoutMs = PROBE_TIMEOUT_MS): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: timeoutMs, windowsHide: true }, (error, stdout) => {
      resolve(error ? undefined : stdout.toString());
    });
  });
}

export async function llmPatchVersion(python: string[]): Promise<string | undefined> {
  const out = await runForOutput(python[0], [...python.slice(1), "-c", VERSION_PROBE_SCRIPT]);
  const version = out?.trim();
  return version ? version : undefined;
}

export async function pythonVersion(python: string[]): Promise<string | undefined> {
  const out = await runForOutput(python[0], [
    ...python.slice(1),
    "-c",
    "import platform; print(platform.python_version())",
  ]);
  return out?.trim() || undefined;
}

export async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

export const nodeProbes: Probes = { which: (name) => which(name), llmPatchVersion, exists };

export interface StepResult {
  code: number | null;
  /** The last lines of output, for the error message when a step fails. */
  tail: string;
}

/**
 * Runs one install step, streaming its output line by line (to the log) and stopping it when
 * `isCancelled` turns true.
 */
export function runStep(
  command: string,
  args: string[],
  onLine: (line: string) => void,
  onCancel?: (kill: () => void) => void,
): Promise<StepResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { windowsHide: true, env: { ...process.env, PIP_NO_INPUT: "1" } });
    const lines: string[] = [];
    const emit = (line: string) => {
      lines.push(line);
      if (lines.length > 20) {
        lines.shift();
      }
      onLine(line);
    };
    // One buffer per stream: a partial line on stdout must not absorb stderr's next line.
    const pending = { stdout: "", stderr: "" };
    const feed = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
      const parts = (pending[stream] + chunk.toString()).split(/\r?\n/);
      pending[stream] = parts.pop() ?? "";
      parts.forEach(emit);
    };
    child.stdout.on("data", feed("stdout"));
    child.stderr.on("data", feed("stderr"));
    onCancel?.(() => child.kill());
    child.on("error", (error) => {
      resolve({ code: null, tail: String(error) });
    });
    child.on("close", (code) => {
      for (const rest of [pending.stdout, pending.stderr]) {
        if (rest) {
          emit(rest);
        }
      }
      resolve({ code, tail: lines.join("\n") });
    });
  });
}
