/**
 * Makes `require("vscode")` and `require("vscode-languageclient/node")` return the fakes, so
 * the compiled extension can be loaded by node --test. Import this before the extension.
 */
import Module from "node:module";

import * as languageclient from "./languageclient";
import * as vscode from "./vscode";

const mod = Module as unknown as { _load: (request: string, parent: unknown, isMain: boolean) => unknown };
const originalLoad = mod._load;
mod._load = function (request: string, parent: unknown, isMain: boolean) {
  if (request === "vscode") {
    return vscode;
  }
  if (request === "vscode-languageclient/node") {
    return languageclient;
  }
  return originalLoad.call(this, request, parent, isMain);
};

export { languageclient, vscode };
