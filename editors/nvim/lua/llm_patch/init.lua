-- llm-patch for Neovim: run the language server's `llmPatch.apply` / `llmPatch.check` on a
-- register (default `+`, the clipboard) or on lines of a buffer, show the result with
-- vim.notify, preview the unified diff in a scratch split, and make one `u` undo a buffer's
-- whole patch. The server does the work; this module only finds (or starts) its client and
-- presents its report.

local report_mod = require('llm_patch.report')

local M = {}

local NAME = 'llm_patch'
local has_011 = vim.fn.has('nvim-0.11') == 1

M.defaults = {
  -- Overrides merged over lsp/llm_patch.lua (and, on 0.11, over vim.lsp.config('llm_patch')).
  lsp = {},
  -- Start the server and attach it to every normal buffer as it is opened, so anchors match
  -- unsaved text. Off: the client starts on the first :LlmPatch* command instead.
  autostart = true,
  -- Register read by :LlmPatchApply / :LlmPatchCheck / :LlmPatchPreview without an argument.
  register = '+',
  -- Write the buffers a patch changed (`:update`) right after it lands.
  write = false,
  -- How long a command waits for a server that is starting (ms).
  start_timeout = 15000,
}

M.opts = vim.deepcopy(M.defaults)

--- The last result, for :LlmPatchReport and for tests.
---@type {kind: string, report: table|nil, err: any, changed: integer[]}|nil
M.last = nil

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = 'llm-patch' })
end

local function get_clients(filter)
  return (vim.lsp.get_clients or vim.lsp.get_active_clients)(filter)
end

--- Sends every buffer's pending didChange first: a request flushes only its own buffer, and a
--- plan made against text the server has not seen yet is refused by Neovim as stale.
local function flush_changes(client)
  pcall(function()
    require('vim.lsp._changetracking').flush(client)
  end)
end

local function request(client, method, params, handler, bufnr)
  flush_changes(client)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- The base configuration: lsp/llm_patch.lua from 'runtimepath' (0.11 resolves it together
--- with the user's vim.lsp.config calls), then setup()'s `lsp` overrides.
function M.config()
  local base
  if has_011 and vim.lsp.config then
    local ok, resolved = pcall(function()
      return vim.lsp.config[NAME]
    end)
    if ok and resolved then
      base = vim.deepcopy(resolved)
    end
  end
  if not base then
    local file = vim.api.nvim_get_runtime_file('lsp/' .. NAME .. '.lua', false)[1]
    base = file and dofile(file) or { cmd = { 'llm-patch', 'serve' }, root_markers = { '.git' } }
  end
  local cfg = vim.tbl_deep_extend('force', base, M.opts.lsp or {})
  cfg.name = NAME
  return cfg
end

local function find_root(bufnr, markers)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local start = name ~= '' and vim.fs.dirname(name) or vim.fn.getcwd()
  if vim.fs.root then
    return vim.fs.root(start, markers)
  end
  local found = vim.fs.find(markers, { upward = true, path = start })[1]
  return found and vim.fs.dirname(found) or nil
end

--- A buffer the server should know: a loaded, normal buffer with a name (a file) or a reply.
local function attachable(bufnr)
  return vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].buftype == '' and vim.api.nvim_buf_get_name(bufnr) ~= ''
end

local function attach(client, bufnr)
  if attachable(bufnr) and not vim.lsp.buf_is_attached(bufnr, client.id) then
    vim.lsp.buf_attach_client(bufnr, client.id)
  end
end

local undo_break, apply_edit_handler

--- Wraps the client's workspace/applyEdit handler (once) so each patch is its own undo step.
function M.adopt(client)
  if client._llm_patch_wrapped then
    return
  end
  client._llm_patch_wrapped = true
  client.handlers = client.handlers or {}
  local inner = client.handlers['workspace/applyEdit'] or vim.lsp.handlers['workspace/applyEdit']
  client.handlers['workspace/applyEdit'] = apply_edit_handler(inner)
end

--- Starts the client without waiting for it (no-op when one runs).
---@return table|nil client
function M.start(bufnr)
  local client = get_clients({ name = NAME })[1]
  if client then
    return client
  end
  local cfg = M.config()
  if type(cfg.root_dir) ~= 'string' then
    local root = nil
    if type(cfg.root_dir) == 'function' then
      -- 0.11 style root_dir(bufnr, on_dir); most call on_dir synchronously.
      pcall(cfg.root_dir, bufnr, function(dir)
        root = dir
      end)
    end
    cfg.root_dir = root or find_root(bufnr, cfg.root_markers or { '.git' }) or vim.fn.getcwd()
  end
  local ok, id
  if has_011 then
    ok, id = pcall(vim.lsp.start, cfg, { attach = false })
  else
    ok, id = pcall(vim.lsp.start_client, cfg)
  end
  if not ok or not id then
    local cmd = type(cfg.cmd) == 'table' and table.concat(cfg.cmd, ' ') or tostring(cfg.cmd)
    notify(('llm-patch: could not start %s: %s'):format(cmd, tostring(id)), vim.log.levels.ERROR)
    return nil
  end
  client = vim.lsp.get_client_by_id(id)
  if client then
    M.adopt(client)
  end
  return client
end

--- The running, initialized client, attached to every loaded file (so the server resolves
--- anchors against unsaved buffer text). Waits for a starting server.
---@return table|nil client
function M.client(bufnr)
  local client = M.start(bufnr)
  if not client then
    return nil
  end
  local ready = vim.wait(M.opts.start_timeout, function()
    return client.initialized or client.is_stopped(client) or false
  end, 20)
  if not ready or not client.initialized then
    notify('llm-patch: the server did not start (see :LspLog)', vim.log.levels.ERROR)
    return nil
  end
  M.adopt(client)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    attach(client, b)
  end
  return client
end

local function uris_of(edit)
  local uris = {}
  for uri in pairs(edit.changes or {}) do
    uris[#uris + 1] = uri
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.textDocument then
      uris[#uris + 1] = change.textDocument.uri
    elseif change.kind == 'rename' then
      uris[#uris + 1] = change.newUri
    elseif change.kind == 'create' then
      uris[#uris + 1] = change.uri
    end
  end
  return uris
end

--- Closes the current undo block of a buffer, so the patch becomes its own undo step and one
--- `u` reverts exactly the patch (not the user's last unsaved typing with it).
function undo_break(bufnr)
  if vim.api.nvim_buf_is_loaded(bufnr) then
    vim.api.nvim_buf_call(bufnr, function()
      vim.cmd('let &l:undolevels = &l:undolevels')
    end)
  end
end

--- Buffers changed by the last applied edit (for the notification and `write`).
local pending_changed = {}

function apply_edit_handler(inner)
  return function(err, params, ctx, config)
    local edit = params and params.edit or {}
    local ticks = {}
    for _, uri in ipairs(uris_of(edit)) do
      local ok, bufnr = pcall(vim.uri_to_bufnr, uri)
      if ok then
        undo_break(bufnr)
        ticks[bufnr] = vim.api.nvim_buf_is_loaded(bufnr) and vim.api.nvim_buf_get_changedtick(bufnr) or -1
      end
    end
    local result = inner(err, params, ctx, config)
    -- A created file is loaded as one empty line; text inserted into it ("x\n") leaves that
    -- line behind as a last empty line, which `:w` would write as an extra blank line.
    for _, change in ipairs(edit.documentChanges or {}) do
      if change.kind == 'create' then
        local bufnr = vim.fn.bufnr(vim.uri_to_fname(change.uri))
        if bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr) then
          local n = vim.api.nvim_buf_line_count(bufnr)
          if n > 1 and vim.api.nvim_buf_get_lines(bufnr, n - 1, n, false)[1] == '' then
            vim.api.nvim_buf_set_lines(bufnr, n - 1, n, false, {})
          end
        end
      end
    end
    -- Tell the server about every buffer the edit loaded or created, before answering: it
    -- checks the result (a created file must be on disk or open), and Neovim creates a new
    -- file only as a buffer (CreateFile with ignoreIfExists writes nothing).
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    for _, uri in ipairs(uris_of(edit)) do
      local bufnr = vim.uri_to_bufnr(uri)
      if not vim.api.nvim_buf_is_loaded(bufnr) then
        pcall(vim.fn.bufload, bufnr)
      end
      if client then
        attach(client, bufnr)
      end
    end
    for bufnr, tick in pairs(ticks) do
      if vim.api.nvim_buf_is_valid(bufnr) and vim.api.nvim_buf_get_changedtick(bufnr) ~= tick then
        pending_changed[#pending_changed + 1] = bufnr
      end
    end
    return result
  end
end

local function line_length(line, encoding)
  if encoding == 'utf-8' then
    return #line
  end
  if has_011 then
    return vim.str_utfindex(line, encoding == 'utf-32' and 'utf-32' or 'utf-16')
  end
  local utf32, utf16 = vim.str_utfindex(line)
  return encoding == 'utf-32' and utf32 or utf16
end

--- What the command runs on: `{uri, range?}` for lines of an attached buffer (so the server
--- puts its diagnostics on them), else `{text}`.
---@return table|nil source
local function reply_source(client, args, bufnr)
  if args.range and args.range > 0 then
    local line_count = vim.api.nvim_buf_line_count(bufnr)
    local whole = args.line1 == 1 and args.line2 == line_count
    if vim.lsp.buf_is_attached(bufnr, client.id) then
      local source = { uri = vim.uri_from_bufnr(bufnr) }
      if not whole then
        local last = vim.api.nvim_buf_get_lines(bufnr, args.line2 - 1, args.line2, false)[1] or ''
        source.range = {
          start = { line = args.line1 - 1, character = 0 },
          ['end'] = { line = args.line2 - 1, character = line_length(last, client.offset_encoding) },
        }
      end
      return source
    end
    local lines = vim.api.nvim_buf_get_lines(bufnr, args.line1 - 1, args.line2, false)
    return { text = table.concat(lines, '\n') .. '\n' }
  end
  local reg = (args.args and args.args ~= '') and args.args or M.opts.register
  local ok, text = pcall(vim.fn.getreg, reg)
  if not ok or type(text) ~= 'string' or not text:find('%S') then
    notify(('register %s is empty (CLIPBOARD_MISSING): copy the reply first'):format(reg), vim.log.levels.WARN)
    return nil
  end
  return { text = text }
end

local function finish(kind, err, result)
  local changed = pending_changed
  pending_changed = {}
  local report = not err and report_mod.parse(result) or nil
  M.last = { kind = kind, report = report, err = err, changed = changed }
  if err then
    notify('llm-patch: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
  elseif not report then
    notify('llm-patch: the server returned no report', vim.log.levels.ERROR)
  else
    local msg, level = report_mod.notification(report)
    local unsaved = {}
    for _, b in ipairs(changed) do
      if vim.api.nvim_buf_is_valid(b) then
        if M.opts.write then
          vim.api.nvim_buf_call(b, function()
            vim.cmd('silent update')
          end)
        elseif vim.bo[b].modified then
          unsaved[#unsaved + 1] = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':.')
        end
      end
    end
    if #unsaved > 0 then
      msg = msg .. (' Unsaved: %s (:wa writes, u undoes).'):format(table.concat(unsaved, ', '))
    end
    notify(msg, level)
  end
  vim.api.nvim_exec_autocmds('User', { pattern = 'LlmPatchDone', modeline = false, data = M.last })
end

--- Runs llmPatch.apply (kind 'apply') or llmPatch.check (kind 'check') on a reply source.
function M.run(kind, source, opts, bufnr, on_done)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    return false
  end
  local args = { source }
  if opts and next(opts) then
    args[2] = opts
  end
  local command = kind == 'apply' and 'llmPatch.apply' or 'llmPatch.check'
  pending_changed = {}
  request(client, 'workspace/executeCommand', { command = command, arguments = args }, function(err, result)
    if on_done then
      on_done(err, result)
    else
      finish(kind, err, result)
    end
  end, bufnr)
  return true
end

local preview_ns = vim.api.nvim_create_namespace('llm_patch_preview')

--- :LlmPatchPreview: check, then show the diff in a scratch split; `a` applies, `q` discards.
function M.preview(source, bufnr)
  return M.run('check', source, nil, bufnr, function(err, result)
    local report = not err and report_mod.parse(result) or nil
    if not report then
      finish('check', err, result)
      return
    end
    M.last = { kind = 'check', report = report, changed = {} }
    vim.cmd('botright new')
    local buf = vim.api.nvim_get_current_buf()
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'wipe'
    vim.bo[buf].swapfile = false
    pcall(vim.api.nvim_buf_set_name, buf, 'llm-patch://preview/' .. buf)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, report_mod.preview_lines(report))
    vim.bo[buf].modifiable = false
    vim.bo[buf].filetype = 'diff'
    vim.api.nvim_buf_clear_namespace(buf, preview_ns, 0, -1)
    local function close()
      if vim.api.nvim_buf_is_valid(buf) then
        vim.api.nvim_buf_delete(buf, { force = true })
      end
    end
    vim.keymap.set('n', 'q', function()
      close()
      notify('llm-patch: preview discarded, nothing applied')
      vim.api.nvim_exec_autocmds('User', { pattern = 'LlmPatchDone', modeline = false, data = { kind = 'discard' } })
    end, { buffer = buf, nowait = true, desc = 'llm-patch: discard' })
    vim.keymap.set('n', 'a', function()
      close()
      M.run('apply', source, nil, bufnr)
    end, { buffer = buf, nowait = true, desc = 'llm-patch: apply' })
    vim.api.nvim_exec_autocmds('User', { pattern = 'LlmPatchPreview', modeline = false, data = { buf = buf, report = report } })
  end)
end

--- Entry point of the user commands.
---@param kind 'apply'|'check'|'preview'
---@param args table the nvim_create_user_command callback's argument
function M.command(kind, args)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    return
  end
  local source = reply_source(client, args, bufnr)
  if not source then
    return
  end
  if kind == 'preview' then
    M.preview(source, bufnr)
  else
    M.run(kind, source, (kind == 'apply' and args.bang) and { partial = true } or nil, bufnr)
  end
end

--- :LlmPatchReport: the last report in a scratch split.
function M.show_report()
  if not (M.last and M.last.report) then
    notify('llm-patch: no report yet')
    return
  end
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, report_mod.report_lines(M.last.report, M.last.kind))
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'markdown'
  vim.keymap.set('n', 'q', '<cmd>close<cr>', { buffer = buf, nowait = true })
end

local group = vim.api.nvim_create_augroup('llm_patch', { clear = true })

--- Optional: options, and (by default) attach the server to every normal buffer.
function M.setup(opts)
  M.opts = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  vim.api.nvim_clear_autocmds({ group = group })
  if M.opts.autostart then
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufEnter' }, {
      group = group,
      callback = function(ev)
        if not attachable(ev.buf) then
          return
        end
        local client = M.start(ev.buf)
        if client then
          attach(client, ev.buf)
        end
      end,
    })
  end
end

return M
