-- llm-patch language server, in the Neovim 0.11 `vim.lsp.config` format (the same file
-- nvim-lspconfig's `lsp/` directory holds). With this directory on 'runtimepath':
--
--   vim.lsp.enable('llm_patch')
--
-- There is deliberately no `filetypes` list: the server must see every buffer, because the
-- text an edit anchors to may be unsaved, and because any buffer (a chat log, a markdown note,
-- a scratch file) can hold the reply. Override anything with
-- `vim.lsp.config('llm_patch', { ... })`, e.g. `cmd = { '/path/to/venv/bin/llm-patch', 'serve' }`.

---@type vim.lsp.Config
return {
  cmd = { 'llm-patch', 'serve' },
  -- The repository root: paths in a model's reply are relative to it.
  root_markers = { '.git', '.hg', '.jj', '.svn' },
  -- Read by the server through workspace/configuration (section `llmPatch`). Empty: the
  -- server's defaults. Keys: atomic, confirmFuzzy, alwaysPreview, fuzzyThreshold, mode
  -- ('unrestricted' | 'restricted'), logLevel, diagnostics, diagnosticsDelay, codeLens,
  -- replyFiles (defaults in editors/README.md), e.g.
  -- vim.lsp.config('llm_patch', { settings = { llmPatch = { atomic = false } } }).
  settings = { llmPatch = vim.empty_dict() },
  -- Change annotations: the server marks the placements it is not sure of (a fuzzy match, a
  -- code snippet placed by its definitions' names, a preview) as needing confirmation. Neovim
  -- applies annotated edits without asking; the plugin asks first (0.11 merges this into the
  -- default capabilities; the plugin does the same on 0.10).
  capabilities = {
    workspace = { workspaceEdit = { documentChanges = true, changeAnnotationSupport = { groupsOnLabel = false } } },
  },
}
