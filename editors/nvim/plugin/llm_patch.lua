-- User commands for llm-patch. The work happens in lua/llm_patch (loaded on first use).
--
--   :LlmPatchApply [reg]        apply the reply in register [reg] (default +, the clipboard)
--   :'<,'>LlmPatchApply         apply the reply in the selected lines
--   :LlmPatchApply!             ... applying the blocks that can be placed even if others fail
--   :LlmPatchCheck [reg]        check only: report which blocks would land (ranged too)
--   :LlmPatchPreview [reg]      the unified diff in a scratch split: `a` applies, `q` discards
--   :LlmPatchReport             the last report in a scratch split

if vim.g.loaded_llm_patch then
  return
end
vim.g.loaded_llm_patch = true

if vim.fn.has('nvim-0.10') == 0 then
  vim.api.nvim_create_user_command('LlmPatchApply', function()
    vim.notify('llm-patch commands need Neovim 0.10 or newer (the LSP setup works on 0.9)', vim.log.levels.ERROR)
  end, { nargs = '?', range = true, bang = true })
  return
end

local function registers()
  local out = {}
  for _, r in ipairs(vim.split('+*"0123456789abcdefghijklmnopqrstuvwxyz-', '')) do
    out[#out + 1] = r
  end
  return out
end

local function define(name, kind, desc)
  vim.api.nvim_create_user_command(name, function(args)
    require('llm_patch').command(kind, args)
  end, { nargs = '?', range = true, bang = kind == 'apply', complete = registers, desc = desc })
end

define('LlmPatchApply', 'apply', 'llm-patch: apply the reply in a register (default +) or in the selected lines')
define('LlmPatchCheck', 'check', 'llm-patch: check which blocks of the reply would land')
define('LlmPatchPreview', 'preview', 'llm-patch: show the diff the reply would make; a applies, q discards')
vim.api.nvim_create_user_command('LlmPatchReport', function()
  require('llm_patch').show_report()
end, { desc = 'llm-patch: show the last report' })

-- However the client was started (vim.lsp.enable, lspconfig, setup, a command), make each
-- patch its own undo step in every buffer it changes.
vim.api.nvim_create_autocmd('LspAttach', {
  group = vim.api.nvim_create_augroup('llm_patch_attach', { clear = true }),
  callback = function(ev)
    local client = ev.data and vim.lsp.get_client_by_id(ev.data.client_id)
    if client and client.name == 'llm_patch' then
      require('llm_patch').adopt(client)
    end
  end,
})
