/**
 * The one-click install: a private virtual environment in the extension's global storage with
 * llm-patch installed into it. Pure planning (paths, steps, which Python to build the venv
 * from, what to install); the extension runs the steps with progress and streams their
 * output to the log.
 *
 * llm-patch is not on a package index, so what is installed by default is the server's wheel
 * the .vsix carries (`server/llm_patch-<version>-py3-none-any.whl`, built by
 * scripts/wheel.mjs); its dependencies come from the user's index as usual.
 */
import * as path from "node:path";

export interface InstallStep {
  title: string;
  command: string;
  args: string[];
}

/** llm-patch needs Python 3.11 or newer (pyproject's requires-python). */
export const MIN_PYTHON: readonly [number, number] = [3, 11];

/** Folder of the .vsix that holds the server's wheel. */
export const BUNDLED_WHEEL_DIR = "server";

const WHEEL_NAME = /^llm_patch-(\d+(?:\.\d+)*)[^-]*-py3-none-any\.whl$/;

function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) {
      return d;
    }
  }
  return 0;
}

/**
 * The bundled wheel among the names in the extension's `server/` folder: the newest
 * `llm_patch-*-py3-none-any.whl` (a package holds one; a development folder may hold more).
 */
export function bundledWheel(extensionDir: string, names: readonly string[]): string | undefined {
  const wheels = names
    .map((name) => ({ name, m: WHEEL_NAME.exec(name) }))
    .filter((w): w is { name: string; m: RegExpExecArray } => w.m !== null)
    .sort((a, b) => compareVersions(a.m[1], b.m[1]));
  const newest = wheels.at(-1);
  return newest ? path.join(extensionDir, BUNDLED_WHEEL_DIR, newest.name) : undefined;
}

/**
 * What `pip install` gets: the `llmPatch.server.installSource` setting when set (a package
 * name, a checkout, a wheel, a VCS URL), else the bundled wheel; undefined when neither.
 */
export function installSource(setting: string, wheel: string | undefined): string | undefined {
  return setting.trim() || wheel;
}

export function venvDir(globalStorage: string): string {
  return path.join(globalStorage, "server-venv");
}

export function venvPython(dir: string, platform: NodeJS.Platform): string {
  return platform === "win32"
    ? path.win32.join(dir, "Scripts", "python.exe")
    : path.posix.join(dir, "bin", "python");
}

export function installSteps(
  basePython: string[],
  dir: string,
  source: string,
  platform: NodeJS.Platform,
): InstallStep[] {
  const python = venvPython(dir, platform);
  return [
    {
      title: "Creating a private Python environment",
      command: basePython[0],
      args: [...basePython.slice(1), "-m", "venv", "--clear", dir],
    },
    {
      // a bundled wheel is a long path in the extension's folder: its name says enough
      title: `Installing ${source.endsWith(".whl") ? path.basename(source) : source}`,
      command: python,
      args: ["-m", "pip", "install", "--disable-pip-version-check", "--upgrade", source],
    },
  ];
}

/** Parses `3.12.1` (what `python -c "import platform; print(platform.python_version())"` prints). */
export function parsePythonVersion(text: string): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

export function isSupportedPython(version: [number, number] | undefined): boolean {
  if (!version) {
    return false;
  }
  return version[0] > MIN_PYTHON[0] || (version[0] === MIN_PYTHON[0] && version[1] >= MIN_PYTHON[1]);
}

export interface BasePythonChoice {
  python?: string[];
  /** Why each rejected candidate was rejected (shown when none fits). */
  rejected: string[];
}

/**
 * The first candidate that runs and is new enough. Candidates come in the discovery order:
 * the interpreter setting, the Python extension's interpreter, then pythons on PATH.
 */
export async function pickBasePython(
  candidates: string[][],
  versionOf: (python: string[]) => Promise<string | undefined>,
): Promise<BasePythonChoice> {
  const rejected: string[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    const key = candidate.join("\u0000");
    if (candidate.length === 0 || seen.has(key)) {
      continue;
    }
    seen.add(key);
    const text = await versionOf(candidate);
    const version = text === undefined ? undefined : parsePythonVersion(text);
    if (isSupportedPython(version)) {
      return { python: candidate, rejected };
    }
    rejected.push(
      version
        ? `${candidate.join(" ")} is Python ${version.join(".")}; llm-patch needs ${MIN_PYTHON.join(".")}+`
        : `${candidate.join(" ")} did not run`,
    );
  }
  return { rejected };
}
