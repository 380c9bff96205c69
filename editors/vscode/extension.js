// The V12 TorqueScript extension: the language comes from package.json; this registers the
// debugger, which runs `tscript --dap` (the path in the torquescript.tscriptPath setting).
"use strict";
const vscode = require("vscode");

function activate(context) {
  const factory = {
    createDebugAdapterDescriptor() {
      const tscript = vscode.workspace.getConfiguration("torquescript").get("tscriptPath") || "tscript";
      return new vscode.DebugAdapterExecutable(tscript, ["--dap"]);
    },
  };
  context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory("torquescript", factory));
}

function deactivate() {}

module.exports = { activate, deactivate };
