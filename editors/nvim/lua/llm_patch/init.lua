-- llm-patch for Neovim: run the language server's `llmPatch.apply` / `llmPatch.check` on a
-- register (default `+`, the clipboard) or on lines of a buffer, and say what happened: the
-- server's own words (its report), which files changed, which are unsaved. The code actions
-- and code lenses the server offers run through the same path (server.lua routes them here),
-- so they are reported the same way.
--
--   server.lua   one client per workspace, attached to every file buffer, always synced
--   edit.lua     the server's workspace/applyEdit: version and unsaved-work checks, undo
--   view.lua     scratch splits (preview, report), the per-block review
--   report.lua   the report as plain tables and lines (pure)

local report_mod = require('llm_patch.report')
local server = require('llm_patch.server')
local edit = require('llm_patch.edit')

local M = {}

local has_011 = vim.fn.has('nvim-0.11') == 1

M.defaults = {
  -- Overrides merged over lsp/llm_patch.lua (and, on 0.11, over vim.lsp.config('llm_patch')).
  lsp = {},
  -- Start the server and attach it to every file buffer as it is opened, so anchors match
  -- unsaved text. Off: the client starts on the first :LlmPatch* command instead.
  autostart = true,
  -- Register read by :LlmPatchApply / :LlmPatchCheck / :LlmPatchPreview without an argument.
  register = '+',
  -- Write the buffers a patch changed (`:update`) right after it lands.
  write = false,
  -- How long a command waits for a server that is starting (ms).
  start_timeout = 15000,
  -- Code actions and code lenses that apply a reply show the diff first (`a` applies).
  preview = false,
  -- Failures as virtual text in reply buffers (0.11 shows diagnostics as signs only).
  virtual_text = true,
  -- Code lenses in reply buffers ("✓ src/a.py:42 (exact)"), refreshed as the reply changes.
  codelens = true,
  -- Failed blocks to the quickfix list after each command (not opened: :copen).
  quickfix = true,
}

M.opts = vim.deepcopy(M.defaults)

--- The last result, for :LlmPatchReport, the statusline and tests.
---@type {kind: string, report: table|nil, err: any, changed: integer[]}|nil
M.last = nil

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = 'llm-patch' })
end
M.notify = notify

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

--- The client for a buffer, ready; says why not otherwise.
function M.client(bufnr)
  if server.state(bufnr) ~= 'ready' then
    local c = server.find(bufnr)
    if c and not c.initialized then
      notify('llm-patch: the server is starting; the command runs when it is ready')
    end
  end
  local client, err = server.ready(bufnr, M.opts.start_timeout)
  if not client then
    notify('llm-patch: ' .. err, vim.log.levels.ERROR)
  end
  return client
end

local function file_uri(bufnr)
  if bufnr and bufnr > 0 and server.attachable(bufnr) then
    return vim.uri_from_bufnr(bufnr)
  end
  return nil
end

--- What a command runs on: `{uri, range?}` for lines of an attached buffer (so the server puts
--- its diagnostics on them), else `{text}` (a register, an unnamed or scratch buffer). With
--- `target`: the file a block without a path applies to — the current buffer for a register,
--- the alternate buffer when the reply is the current buffer.
---@return table|nil source, table|nil reply where the reply sits, for the quickfix list
function M.reply_source(client, args, bufnr)
  if args.range and args.range > 0 then
    local line_count = vim.api.nvim_buf_line_count(bufnr)
    local whole = args.line1 == 1 and args.line2 == line_count
    local source
    if vim.lsp.buf_is_attached(bufnr, client.id) then
      source = { uri = vim.uri_from_bufnr(bufnr) }
      if not whole then
        local last = vim.api.nvim_buf_get_lines(bufnr, args.line2 - 1, args.line2, false)[1] or ''
        source.range = {
          start = { line = args.line1 - 1, character = 0 },
          ['end'] = { line = args.line2 - 1, character = line_length(last, client.offset_encoding) },
        }
      end
    else
      -- the lines above the range as empty lines: the report's reply lines then count from
      -- the buffer's first line (as the server does for {uri, range})
      local lines = vim.api.nvim_buf_get_lines(bufnr, args.line1 - 1, args.line2, false)
      source = { text = ('\n'):rep(args.line1 - 1) .. table.concat(lines, '\n') .. '\n' }
    end
    source.target = file_uri(vim.fn.bufnr('#'))
    return source, { bufnr = bufnr }
  end
  local reg = (args.args and args.args ~= '') and args.args or M.opts.register
  local ok, text = pcall(vim.fn.getreg, reg)
  if not ok or type(text) ~= 'string' or not text:find('%S') then
    notify(('llm-patch: register %s is empty (CLIPBOARD_MISSING): copy the reply first'):format(reg), vim.log.levels.WARN)
    return nil
  end
  return { text = text, target = file_uri(bufnr) }, { root = client.config.root_dir }
end

local function rel(bufnr)
  return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':.')
end

local function fill_quickfix(report, reply)
  if not (M.opts.quickfix and report) then
    return false
  end
  local items = report_mod.quickfix_items(report, reply or {})
  if #items == 0 then
    return false
  end
  vim.fn.setqflist({}, ' ', { title = 'llm-patch: ' .. report_mod.lines(report.summary)[1], items = items })
  return true
end

--- Says how a command ended: the server's summary at its level, then which buffers changed
--- and which of them are unsaved. Each outcome is said once.
function M.finish(kind, err, result, reply)
  local changed = edit.changed
  edit.begin()
  local report = not err and report_mod.parse(result) or nil
  if err and type(err.data) == 'table' then
    report = report_mod.parse(err.data) -- a refusal with a report (Restricted mode)
  end
  M.last = { kind = kind, report = report, err = err, changed = changed, reply = reply }
  if err then
    notify('llm-patch: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
  elseif not report then
    notify('llm-patch: the server returned no report', vim.log.levels.ERROR)
  else
    local msg, level = report_mod.notification(report)
    local extra = {}
    local written, unsaved, seen = {}, {}, {}
    for _, b in ipairs(changed) do
      if vim.api.nvim_buf_is_valid(b) and not seen[b] then
        seen[b] = true
        if M.opts.write and vim.bo[b].modified then
          vim.api.nvim_buf_call(b, function()
            vim.cmd('silent update')
          end)
          written[#written + 1] = rel(b)
        elseif vim.bo[b].modified then
          unsaved[#unsaved + 1] = rel(b)
        end
      end
    end
    if #written > 0 then
      extra[#extra + 1] = ('Written: %s.'):format(table.concat(written, ', '))
    end
    if #unsaved > 0 then
      extra[#extra + 1] = ('Unsaved: %s (:wa writes, :LlmPatchUndo undoes).'):format(table.concat(unsaved, ', '))
    end
    if fill_quickfix(report, reply) then
      extra[#extra + 1] = 'Failures in the quickfix list (:copen).'
    end
    if #extra > 0 then
      -- after a one-line summary on the same line; after a closest-match diff on their own
      local multiline = msg:find('\n') ~= nil
      if not multiline and not msg:match('[.!?]$') then
        msg = msg .. '.'
      end
      msg = msg .. (multiline and '\n' or ' ') .. table.concat(extra, ' ')
    end
    notify(msg, level)
  end
  vim.cmd('redrawstatus')
  vim.api.nvim_exec_autocmds('User', { pattern = 'LlmPatchDone', modeline = false, data = M.last })
end

--- The files a report refused because applying would delete or move away their unsaved
--- work (`details.unsaved`), as {path, what} for edit.ask_unsaved.
function M.unsaved_refusal(result, root)
  local report = report_mod.parse(result)
  local out, seen = {}, {}
  for _, b in ipairs(report and report.blocks or {}) do
    local d = b.error and b.error.details
    if d and d.unsaved == true and type(d.path) == 'string' and not seen[d.path] then
      seen[d.path] = true
      local path = d.path:sub(1, 1) == '/' and d.path or ((root or vim.fn.getcwd()) .. '/' .. d.path)
      out[#out + 1] = { path = path, what = d.operation == 'move' and 'moves it' or 'deletes it' }
    end
  end
  return out
end

--- Sends one `llmPatch.*` command with every buffer synced first; messages the server shows
--- meanwhile are left to the report. `on_done(err, result)` gets the answer.
function M.execute(client, command, args, bufnr, on_done, asked)
  server.sync(client)
  local dirty = server.unsent_changes(client)
  if #dirty > 0 and type(args[1]) == 'table' and command ~= 'llmPatch.buildDiff' then
    -- files with unsaved changes the server cannot be shown (a special buffer of a file): a
    -- block on one is refused as stale instead of planned from the disk
    args = vim.deepcopy(args)
    args[1].dirty = dirty
  end
  if (command == 'llmPatch.apply' or command == 'llmPatch.applyBlock') and type(args[1]) == 'table' then
    -- the plugin asks itself before a delete or move of a buffer's unsaved work (edit.lua),
    -- offering to write it first, which keeps the work: the server need not refuse or ask
    args = vim.deepcopy(args)
    args[2] = vim.tbl_extend('force', type(args[2]) == 'table' and args[2] or {}, { confirmUnsaved = true })
  end
  edit.begin()
  server.quiet = server.quiet + 1
  local ok = server.request(client, 'workspace/executeCommand', { command = command, arguments = args }, function(err, result)
    server.quiet = math.max(0, server.quiet - 1)
    local at_risk = not err and M.unsaved_refusal(result, client.config.root_dir) or {}
    if #at_risk > 0 and not asked then
      -- the server refused to delete or move a buffer's unsaved work: ask here (write it
      -- first, then apply the same reply again), instead of leaving the user to find out how
      if edit.ask_unsaved(at_risk) then
        M.execute(client, command, args, bufnr, on_done, true)
        return
      end
    end
    on_done(err, result)
  end, bufnr)
  if not ok then
    server.quiet = math.max(0, server.quiet - 1)
    notify('llm-patch: the server is not running (see :LspLog)', vim.log.levels.ERROR)
  end
  return ok
end

--- Runs llmPatch.apply (kind 'apply') or llmPatch.check (kind 'check') on a reply source.
function M.run(kind, source, opts, bufnr, on_done, reply)
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
  return M.execute(client, command, args, bufnr, function(err, result)
    if on_done then
      on_done(err, result)
    else
      M.finish(kind, err, result, reply)
    end
  end)
end

--- A code action's or code lens's `llmPatch.*` command (server.lua routes them here): the
--- same sync, reporting and preview as the user commands.
function M.code_action_command(client, command, ctx)
  local args = command.arguments or {}
  local name = command.command
  local kind = name == 'llmPatch.check' and 'check' or 'apply'
  local source = args[1]
  local reply = {}
  if type(source) == 'table' and source.uri then
    local b = vim.uri_to_bufnr(source.uri)
    reply = { bufnr = b }
  end
  local options = type(args[2]) == 'table' and args[2] or {}
  local annotated = vim.tbl_get(client, 'capabilities', 'workspace', 'workspaceEdit', 'changeAnnotationSupport') ~= nil
  if name == 'llmPatch.applyBlock' and options.preview and not annotated then
    -- a client started without change annotations (a hand-written config) gets no
    -- confirmation from the server's edit (edit.lua asks for those): ask here.
    local question = ('llm-patch: %s?'):format(command.title or 'apply this block')
    if vim.fn.confirm(question, '&Yes\n&No', 2, 'Question') ~= 1 then
      notify('llm-patch: not applied')
      return
    end
  elseif name == 'llmPatch.apply' and (M.opts.preview or options.preview) then
    local rest = vim.deepcopy(options)
    rest.preview = nil
    require('llm_patch.view').preview(source, ctx.bufnr, rest, reply)
    return
  end
  M.execute(client, name, args, ctx.bufnr, function(err, result)
    M.finish(kind, err, result, reply)
  end)
end

--- Entry point of the user commands.
---@param kind 'apply'|'check'|'preview'|'review'
---@param args table the nvim_create_user_command callback's argument
function M.command(kind, args)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    return
  end
  local source, reply = M.reply_source(client, args, bufnr)
  if not source then
    return
  end
  if kind == 'preview' then
    require('llm_patch.view').preview(source, bufnr, nil, reply)
  elseif kind == 'review' then
    require('llm_patch.view').review(source, bufnr, reply)
  else
    M.run(kind, source, (kind == 'apply' and args.bang) and { partial = true } or nil, bufnr, nil, reply)
  end
end

--- :LlmPatchReport: the last report in a scratch split.
function M.show_report()
  if not (M.last and M.last.report) then
    notify('llm-patch: no report yet')
    return
  end
  require('llm_patch.view').scratch(report_mod.report_lines(M.last.report, M.last.kind), 'markdown')
end

--- :LlmPatchUndo: the last patch undone in every file it touched.
function M.undo()
  local msg, all = edit.undo()
  notify('llm-patch: ' .. msg, all and vim.log.levels.INFO or vim.log.levels.WARN)
end

--- :LlmPatchQuickfix: the last report's failures in the quickfix list, opened.
function M.quickfix()
  local report = M.last and M.last.report
  local items = report and report_mod.quickfix_items(report, M.last.reply or {}) or {}
  if #items == 0 then
    notify('llm-patch: no failures in the last report')
    return
  end
  vim.fn.setqflist({}, ' ', { title = 'llm-patch: ' .. report_mod.lines(report.summary)[1], items = items })
  vim.cmd('copen')
end

--- A statusline component: the server's state for the current buffer and the last result's
--- label (the server's words: "✓ 2 edits", "✗ 1 failed"). Empty when no server runs.
---   vim.o.statusline = '%f %= %{v:lua.require("llm_patch").statusline()}'
function M.statusline()
  local state = server.state(vim.api.nvim_get_current_buf())
  if not state then
    return ''
  end
  if state == 'starting' then
    return 'llm-patch …'
  end
  local report = M.last and M.last.report
  if report then
    return 'llm-patch ' .. report.label
  end
  if M.last and M.last.err then
    return 'llm-patch ✗'
  end
  return 'llm-patch'
end

--- The code-action key, waiting for a starting server with a message instead of the silence
--- of vim.lsp.buf.code_action (which sees no client until it is initialized).
function M.code_action(opts)
  local bufnr = vim.api.nvim_get_current_buf()
  if vim.api.nvim_buf_get_name(bufnr) == '' and vim.bo[bufnr].buftype == '' then
    return M.unnamed_actions(bufnr, opts)
  end
  if server.state(bufnr) == 'starting' then
    notify('llm-patch: the server is starting; code actions follow when it is ready')
    local client, err = server.ready(bufnr, M.opts.start_timeout)
    if not client then
      notify('llm-patch: ' .. err, vim.log.levels.ERROR)
      return
    end
  end
  vim.lsp.buf.code_action(opts)
end

--- The reply actions of an unnamed buffer (|:enew|), picked with vim.ui.select. Neovim gives
--- every unnamed buffer the same URI (`file://`), so the server cannot be shown one as a
--- document of its own, and the stock code-action key finds no client there; the plugin
--- offers the same actions on the buffer's (or the selection's) text.
function M.unnamed_actions(bufnr, opts)
  local line1, line2 = 1, vim.api.nvim_buf_line_count(bufnr)
  local range = opts and opts.range
  if range then
    line1, line2 = range.start[1], range['end'][1]
  elseif vim.fn.mode():find('^[vV\22]') then
    line1, line2 = vim.fn.line('v'), vim.fn.line('.')
    if line1 > line2 then
      line1, line2 = line2, line1
    end
    vim.api.nvim_feedkeys(vim.keycode('<Esc>'), 'nx', false)
  end
  local actions = {
    { title = 'Apply LLM patch', kind = 'apply' },
    { title = 'Apply LLM patch: the blocks that place (skip the failed ones)', kind = 'apply', bang = true },
    { title = 'Check LLM patch (show failures, apply nothing)', kind = 'check' },
    { title = 'Preview LLM patch (the diff; a applies)', kind = 'preview' },
    { title = 'Review LLM patch block by block', kind = 'review' },
  }
  vim.ui.select(actions, {
    prompt = 'llm-patch:',
    kind = 'codeaction',
    format_item = function(a)
      return a.title
    end,
  }, function(choice)
    if choice then
      M.command(choice.kind, { range = 2, line1 = line1, line2 = line2, bang = choice.bang == true, args = '' })
    end
  end)
end

-- ---- reply buffers: lenses and virtual text ---------------------------------------------------

--- A buffer the server treats as a reply: it has the server's diagnostics, or its name matches
--- `replyFiles` (the server's default list unless the settings give one).
local function is_reply_buffer(client, bufnr)
  local ns = vim.lsp.diagnostic.get_namespace(client.id)
  if #vim.diagnostic.get(bufnr, { namespace = ns }) > 0 then
    return true
  end
  local name = vim.fs.basename(vim.api.nvim_buf_get_name(bufnr)):lower()
  local globs = vim.tbl_get(client.config, 'settings', 'llmPatch', 'replyFiles') or { '*.llm.md', '*.patch', '*.diff' }
  for _, glob in ipairs(type(globs) == 'table' and globs or {}) do
    if name ~= '' and vim.regex(vim.fn.glob2regpat(glob:lower())):match_str(name) then
      return true
    end
  end
  return false
end

local function refresh_lenses(client, bufnr)
  if not (M.opts.codelens and vim.lsp.buf_is_attached(bufnr, client.id) and is_reply_buffer(client, bufnr)) then
    return
  end
  vim.lsp.codelens.refresh({ bufnr = bufnr })
end

local watch_group = vim.api.nvim_create_augroup('llm_patch_buffers', { clear = true })
local watching = false

--- Buffers opened later are attached to the running client of their workspace whatever their
--- filetype (`vim.lsp.enable` attaches only buffers with one), and reply buffers' lenses
--- follow their text.
local function watch()
  if watching then
    return
  end
  watching = true
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = watch_group,
    callback = function(ev)
      local client = server.attachable(ev.buf) and server.find(ev.buf)
      if client and client.initialized then
        server.attach(client, ev.buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged', 'DiagnosticChanged' }, {
    group = watch_group,
    callback = function(ev)
      for _, client in ipairs(server.all()) do
        if client.initialized and vim.api.nvim_buf_is_valid(ev.buf) then
          refresh_lenses(client, ev.buf)
        end
      end
    end,
  })
end

--- LspAttach of an llm-patch client, however it was started: adopt it (server.lua), attach
--- every other file buffer, show failures as virtual text in its namespace (0.11 hides
--- diagnostics' virtual text by default, so a failed block would be a sign only), refresh
--- the lenses of a reply buffer.
function M.on_lsp_attach(client, bufnr)
  server.adopt(client)
  watch()
  if M.opts.virtual_text then
    local ns = vim.lsp.diagnostic.get_namespace(client.id)
    vim.diagnostic.config({ virtual_text = { source = false } }, ns)
  end
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    server.attach(client, b)
  end
  refresh_lenses(client, bufnr)
  -- the statusline said "llm-patch …" while the server started: show it ready now, not at
  -- the next key press
  vim.cmd('redrawstatus!')
end

local group = vim.api.nvim_create_augroup('llm_patch', { clear = true })
local start_errors = {}

--- Options, and (by default) attach the server to every file buffer as it opens.
function M.setup(opts)
  M.opts = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  server.opts.lsp = M.opts.lsp
  vim.api.nvim_clear_autocmds({ group = group })
  if M.opts.autostart then
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufEnter' }, {
      group = group,
      callback = function(ev)
        if not server.attachable(ev.buf) then
          return
        end
        local client, err = server.start(ev.buf)
        if client then
          server.attach(client, ev.buf)
        elseif err and not start_errors[err] then
          start_errors[err] = true -- said once, not on every buffer entered
          notify('llm-patch: ' .. err, vim.log.levels.ERROR)
        end
      end,
    })
  end
end

-- the client-side hooks server.lua installs on every llm-patch client
server.hooks.command = function(client, command, ctx)
  M.code_action_command(client, command, ctx)
end
server.hooks.apply_edit = edit.handler(server.attach)

return M
