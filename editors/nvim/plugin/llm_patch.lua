-- User commands and <Plug> mappings for llm-patch. The work happens in lua/llm_patch (loaded
-- on first use). See :help llm_patch.
--
--   :LlmPatchApply [reg]        apply the reply in register [reg] (default +, the clipboard)
--   :'<,'>LlmPatchApply         apply the reply in the selected lines
--   :LlmPatchApply!             ... applying the blocks that can be placed even if others fail
--   :LlmPatchCheck [reg]        check only: report which blocks would land (ranged too)
--   :LlmPatchPreview [reg]      the unified diff in a scratch split: `a` applies, `q` discards
--   :LlmPatchReview [reg]       each block's diff: `x` accepts/rejects, `a` applies the accepted
--   :LlmPatchUndo               undo the last patch in every file it touched
--   :LlmPatchReport             the last report in a scratch split
--   :LlmPatchQuickfix           the last report's failures in the quickfix list

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
define('LlmPatchReview', 'review', 'llm-patch: accept or reject each block, then apply the accepted ones')
vim.api.nvim_create_user_command('LlmPatchReport', function()
  require('llm_patch').show_report()
end, { desc = 'llm-patch: show the last report' })
vim.api.nvim_create_user_command('LlmPatchUndo', function()
  require('llm_patch').undo()
end, { desc = 'llm-patch: undo the last patch in every file it touched' })
vim.api.nvim_create_user_command('LlmPatchQuickfix', function()
  require('llm_patch').quickfix()
end, { desc = 'llm-patch: the last failures in the quickfix list' })

-- <Plug> mappings, for the user to bind: e.g. vim.keymap.set('n', '<leader>pa', '<Plug>(llm-patch-apply)')
local function plug(name, modes, rhs, desc)
  vim.keymap.set(modes, '<Plug>(' .. name .. ')', rhs, { silent = true, desc = 'llm-patch: ' .. desc })
end
plug('llm-patch-apply', 'n', '<Cmd>LlmPatchApply<CR>', 'apply the clipboard')
plug('llm-patch-apply', 'x', ':LlmPatchApply<CR>', 'apply the selected lines')
plug('llm-patch-check', 'n', '<Cmd>LlmPatchCheck<CR>', 'check the clipboard')
plug('llm-patch-check', 'x', ':LlmPatchCheck<CR>', 'check the selected lines')
plug('llm-patch-preview', 'n', '<Cmd>LlmPatchPreview<CR>', 'preview the clipboard')
plug('llm-patch-preview', 'x', ':LlmPatchPreview<CR>', 'preview the selected lines')
plug('llm-patch-review', 'n', '<Cmd>LlmPatchReview<CR>', 'review the clipboard block by block')
plug('llm-patch-review', 'x', ':LlmPatchReview<CR>', 'review the selected lines block by block')
plug('llm-patch-undo', 'n', '<Cmd>LlmPatchUndo<CR>', 'undo the last patch')
plug('llm-patch-code-action', { 'n', 'x' }, function()
  require('llm_patch').code_action()
end, 'code actions (waits for a starting server, saying so)')

-- However the client was started (vim.lsp.enable, lspconfig, setup, a command), it goes
-- through the plugin: every buffer synced before a request, each patch its own undo step,
-- code actions reported like the commands.
vim.api.nvim_create_autocmd('LspAttach', {
  group = vim.api.nvim_create_augroup('llm_patch_attach', { clear = true }),
  callback = function(ev)
    local client = ev.data and vim.lsp.get_client_by_id(ev.data.client_id)
    if client and client.name == 'llm_patch' then
      require('llm_patch').on_lsp_attach(client, ev.buf)
    end
  end,
})
