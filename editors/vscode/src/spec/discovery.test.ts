import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { discoverServer, pythonNames, type DiscoveryInput, type Probes } from "../discovery";

/** A machine described by data: what is on PATH, which Pythons have llm-patch, which files exist. */
function machine(m: { path?: Record<string, string>; versions?: Record<string, string>; files?: string[] }): Probes & {
  asked: string[];
} {
  const asked: string[] = [];
  return {
    asked,
    async which(name) {
      asked.push(`which ${name}`);
      return m.path?.[name];
    },
    async llmPatchVersion(python) {
      asked.push(`version ${python.join(" ")}`);
      return m.versions?.[python.join(" ")];
    },
    async exists(p) {
      asked.push(`exists ${p}`);
      return (m.files ?? []).includes(p);
    },
  };
}

function input(over: Partial<DiscoveryInput> = {}): DiscoveryInput {
  return {
    serverPath: "",
    serverArgs: ["serve"],
    interpreter: "",
    pythonExtension: async () => undefined,
    privateVenvPython: "/store/server-venv/bin/python",
    platform: "linux",
    ...over,
  };
}

describe("discoverServer", () => {
  it("uses llmPatch.server.path as given, with its args", async () => {
    const d = await discoverServer(
      input({ serverPath: "/opt/bin/llm-patch", serverArgs: ["serve", "--stdio"] }),
      machine({ files: ["/opt/bin/llm-patch"], path: { "llm-patch": "/usr/bin/llm-patch" } }),
    );
    assert.equal(d.kind, "found");
    assert.equal(d.kind === "found" && d.server.command, "/opt/bin/llm-patch");
    assert.deepEqual(d.kind === "found" && d.server.args, ["serve", "--stdio"]);
    assert.equal(d.kind === "found" && d.server.source, "setting:path");
  });

  it("resolves a bare server.path on PATH", async () => {
    const d = await discoverServer(input({ serverPath: "my-llm-patch" }), machine({ path: { "my-llm-patch": "/x/my-llm-patch" } }));
    assert.equal(d.kind === "found" && d.server.command, "/x/my-llm-patch");
  });

  it("does not fall back when server.path is wrong", async () => {
    const m = machine({ path: { "llm-patch": "/usr/bin/llm-patch" } });
    const d = await discoverServer(input({ serverPath: "/nope/llm-patch" }), m);
    assert.equal(d.kind, "misconfigured");
    assert.equal(d.kind === "misconfigured" && d.setting, "llmPatch.server.path");
    assert.match(d.kind === "misconfigured" ? d.message : "", /"\/nope\/llm-patch", which was not found/);
    assert.ok(!m.asked.includes("which llm-patch"));
  });

  it("starts the interpreter setting as `-m lsp_server` when it has the package", async () => {
    const d = await discoverServer(input({ interpreter: "/venv/bin/python" }), machine({ versions: { "/venv/bin/python": "0.1.0" } }));
    assert.equal(d.kind, "found");
    if (d.kind === "found") {
      assert.equal(d.server.command, "/venv/bin/python");
      assert.deepEqual(d.server.args, ["-m", "lsp_server"]);
      assert.equal(d.server.version, "0.1.0");
      assert.match(d.server.description, /llm-patch 0\.1\.0/);
    }
  });

  it("reports an interpreter setting without the package", async () => {
    const d = await discoverServer(input({ interpreter: "/usr/bin/python3" }), machine({ path: { "llm-patch": "/usr/bin/llm-patch" } }));
    assert.equal(d.kind, "misconfigured");
    assert.match(d.kind === "misconfigured" ? d.message : "", /llm-patch is not installed there/);
  });

  it("prefers the Python extension's interpreter over PATH", async () => {
    const d = await discoverServer(
      input({ pythonExtension: async () => ["conda", "run", "-n", "dev", "python"] }),
      machine({ versions: { "conda run -n dev python": "0.2.0" }, path: { "llm-patch": "/usr/bin/llm-patch" } }),
    );
    assert.equal(d.kind, "found");
    if (d.kind === "found") {
      assert.equal(d.server.source, "python-extension");
      assert.equal(d.server.command, "conda");
      assert.deepEqual(d.server.args, ["run", "-n", "dev", "python", "-m", "lsp_server"]);
    }
  });

  it("falls through the Python extension when its interpreter lacks the package, or it throws", async () => {
    const m = machine({ path: { "llm-patch": "/usr/bin/llm-patch" } });
    const d = await discoverServer(input({ pythonExtension: async () => ["/proj/.venv/bin/python"] }), m);
    assert.equal(d.kind === "found" && d.server.source, "path:llm-patch");
    assert.deepEqual(d.kind === "found" && d.server.args, ["serve"]);
    assert.match(d.attempts[0].detail, /\/proj\/\.venv\/bin\/python .*has no llm-patch/);

    const thrown = await discoverServer(
      input({
        pythonExtension: async () => {
          throw new Error("boom");
        },
      }),
      m,
    );
    assert.equal(thrown.kind === "found" && thrown.server.source, "path:llm-patch");
    assert.match(thrown.attempts[0].detail, /boom/);
  });

  it("then tries python3 and python on PATH for `-m lsp_server`", async () => {
    const d = await discoverServer(
      input(),
      machine({ path: { python3: "/usr/bin/python3", python: "/usr/local/bin/python" }, versions: { "/usr/local/bin/python": "1.0" } }),
    );
    assert.equal(d.kind === "found" && d.server.command, "/usr/local/bin/python");
    assert.equal(d.kind === "found" && d.server.source, "path:python");
    assert.ok(d.attempts.some((a) => a.detail === "/usr/bin/python3 has no llm-patch"));
  });

  it("then the private environment from the one-click install", async () => {
    const venv = "/store/server-venv/bin/python";
    const d = await discoverServer(input(), machine({ files: [venv], versions: { [venv]: "0.1.0" } }));
    assert.equal(d.kind === "found" && d.server.source, "private-venv");
    assert.deepEqual(d.kind === "found" && d.server.args, ["-m", "lsp_server"]);
  });

  it("ends not-found with every attempt explained", async () => {
    const d = await discoverServer(input(), machine({ path: { python3: "/usr/bin/python3" } }));
    assert.equal(d.kind, "not-found");
    assert.deepEqual(
      d.attempts.map((a) => a.source),
      ["path:llm-patch", "path:python", "private-venv"],
    );
  });

  it("looks for llm-patch.exe and python first on Windows", async () => {
    assert.deepEqual(pythonNames("win32"), ["python", "python3", "py"]);
    const m = machine({ path: { "llm-patch.exe": "C:\\bin\\llm-patch.exe" } });
    const d = await discoverServer(input({ platform: "win32" }), m);
    assert.equal(d.kind === "found" && d.server.command, "C:\\bin\\llm-patch.exe");
  });

  it("stops at the first source that works (earlier sources win whatever else is present)", async () => {
    // Every source present: the order of preference is the only thing that decides.
    const everything = machine({
      files: ["/s/llm-patch", "/store/server-venv/bin/python"],
      path: { "llm-patch": "/usr/bin/llm-patch", python3: "/usr/bin/python3" },
      versions: { "/i/python": "1", "/ext/python": "1", "/usr/bin/python3": "1", "/store/server-venv/bin/python": "1" },
    });
    const order: [Partial<DiscoveryInput>, string][] = [
      [{ serverPath: "/s/llm-patch", interpreter: "/i/python", pythonExtension: async () => ["/ext/python"] }, "setting:path"],
      [{ interpreter: "/i/python", pythonExtension: async () => ["/ext/python"] }, "setting:interpreter"],
      [{ pythonExtension: async () => ["/ext/python"] }, "python-extension"],
      [{}, "path:llm-patch"],
    ];
    for (const [over, expected] of order) {
      const d = await discoverServer(input(over), everything);
      assert.equal(d.kind === "found" && d.server.source, expected);
    }
  });
});
