/**
 * Which command starts the llm-patch server. The order is the user's intent first (settings),
 * then the environment they already chose for Python (the Python extension), then whatever is
 * on PATH, then the private environment this extension installed. Pure: every probe of the
 * machine is passed in, so the order and the error wording are unit-tested.
 */

export type ServerSource =
  | "setting:path"
  | "setting:interpreter"
  | "python-extension"
  | "path:llm-patch"
  | "path:python"
  | "private-venv";

export interface ServerCommand {
  command: string;
  args: string[];
  source: ServerSource;
  /** Human wording for the output channel and the status tooltip. */
  description: string;
  /** The installed llm-patch version when a probe learned it. */
  version?: string;
}

export interface DiscoveryInput {
  /** `llmPatch.server.path` (empty string = unset). */
  serverPath: string;
  /** `llmPatch.server.args`. */
  serverArgs: string[];
  /** `llmPatch.server.interpreter` (empty string = unset). */
  interpreter: string;
  /** The Python extension's active interpreter as a command line, when that extension is present. */
  pythonExtension: () => Promise<string[] | undefined>;
  /** Interpreter of the private environment made by the one-click install. */
  privateVenvPython: string;
  platform: NodeJS.Platform;
}

export interface Probes {
  /** Full path of an executable found on PATH, or undefined. */
  which(name: string): Promise<string | undefined>;
  /** The llm-patch version installed for this Python command line, or undefined. */
  llmPatchVersion(python: string[]): Promise<string | undefined>;
  exists(path: string): Promise<boolean>;
}

export interface Attempt {
  source: ServerSource;
  detail: string;
}

export type Discovery =
  | { kind: "found"; server: ServerCommand; attempts: Attempt[] }
  /** An explicit setting points at something unusable: say so, do not silently fall back. */
  | { kind: "misconfigured"; setting: string; message: string; attempts: Attempt[] }
  | { kind: "not-found"; attempts: Attempt[] };

export const SERVER_MODULE = "lsp_server";

/** Python names to look for on PATH, in order. */
export function pythonNames(platform: NodeJS.Platform): string[] {
  return platform === "win32" ? ["python", "python3", "py"] : ["python3", "python"];
}

function moduleCommand(python: string[], source: ServerSource, version: string): ServerCommand {
  return {
    command: python[0],
    args: [...python.slice(1), "-m", SERVER_MODULE],
    source,
    description: `${python.join(" ")} -m ${SERVER_MODULE} (llm-patch ${version})`,
    version,
  };
}

export async function discoverServer(input: DiscoveryInput, probes: Probes): Promise<Discovery> {
  const attempts: Attempt[] = [];

  // 1. llmPatch.server.path: the user named the executable; use it as given.
  const serverPath = input.serverPath.trim();
  if (serverPath) {
    const looksLikePath = /[\\/]/.test(serverPath);
    const resolved = looksLikePath
      ? (await probes.exists(serverPath))
        ? serverPath
        : undefined
      : await probes.which(serverPath);
    if (!resolved) {
      const message = `llmPatch.server.path is set to "${serverPath}", which was not found.`;
      attempts.push({ source: "setting:path", detail: message });
      return { kind: "misconfigured", setting: "llmPatch.server.path", message, attempts };
    }
    const args = input.serverArgs.length > 0 ? input.serverArgs : ["serve"];
    return {
      kind: "found",
      server: {
        command: resolved,
        args,
        source: "setting:path",
        description: `${resolved} ${args.join(" ")} (from llmPatch.server.path)`,
      },
      attempts,
    };
  }

  // 2. llmPatch.server.interpreter: must have the package, or the setting is wrong.
  const interpreter = input.interpreter.trim();
  if (interpreter) {
    const version = await probes.llmPatchVersion([interpreter]);
    if (!version) {
      const message =
        `llmPatch.server.interpreter is set to "${interpreter}", but llm-patch is not ` +
        `installed there (run "${interpreter} -m pip install llm-patch", or clear the setting).`;
      attempts.push({ source: "setting:interpreter", detail: message });
      return { kind: "misconfigured", setting: "llmPatch.server.interpreter", message, attempts };
    }
    return { kind: "found", server: moduleCommand([interpreter], "setting:interpreter", version), attempts };
  }

  // 3. The Python extension's active interpreter, when it has the package.
  let fromExtension: string[] | undefined;
  try {
    fromExtension = await input.pythonExtension();
  } catch (error) {
    attempts.push({ source: "python-extension", detail: `could not ask the Python extension: ${String(error)}` });
  }
  if (fromExtension && fromExtension.length > 0) {
    const version = await probes.llmPatchVersion(fromExtension);
    if (version) {
      return { kind: "found", server: moduleCommand(fromExtension, "python-extension", version), attempts };
    }
    attempts.push({
      source: "python-extension",
      detail: `${fromExtension.join(" ")} (the Python extension's interpreter) has no llm-patch`,
    });
  }

  // 4. `llm-patch` on PATH.
  const exe = await probes.which(input.platform === "win32" ? "llm-patch.exe" : "llm-patch");
  if (exe) {
    return {
      kind: "found",
      server: { command: exe, args: ["serve"], source: "path:llm-patch", description: `${exe} serve` },
      attempts,
    };
  }
  attempts.push({ source: "path:llm-patch", detail: "no llm-patch executable on PATH" });

  // 5. A Python on PATH that has the package.
  for (const name of pythonNames(input.platform)) {
    const python = await probes.which(name);
    if (!python) {
      continue;
    }
    const version = await probes.llmPatchVersion([python]);
    if (version) {
      return { kind: "found", server: moduleCommand([python], "path:python", version), attempts };
    }
    attempts.push({ source: "path:python", detail: `${python} has no llm-patch` });
  }

  // 6. The private environment made by "Install llm-patch".
  if (await probes.exists(input.privateVenvPython)) {
    const version = await probes.llmPatchVersion([input.privateVenvPython]);
    if (version) {
      return {
        kind: "found",
        server: moduleCommand([input.privateVenvPython], "private-venv", version),
        attempts,
      };
    }
    attempts.push({ source: "private-venv", detail: `${input.privateVenvPython} has no llm-patch` });
  } else {
    attempts.push({ source: "private-venv", detail: "no private environment installed yet" });
  }
  return { kind: "not-found", attempts };
}

/** The Python script a probe runs: prints the installed llm-patch version, exits 1 without it. */
export const VERSION_PROBE_SCRIPT = [
  "import importlib.metadata as m, importlib.util as u, sys",
  "try:",
  "    v = m.version('llm-patch')",
  "except m.PackageNotFoundError:",
  "    sys.exit(1)",
  "if u.find_spec('lsp_server') is None:",
  "    sys.exit(1)",
  "print(v)",
].join("\n");
