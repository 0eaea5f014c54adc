-- The llm-patch client: exactly one per workspace root, however it was started (setup(),
-- vim.lsp.enable, nvim-lspconfig, a command), attached to every file buffer, and always given
-- every buffer's pending changes before it is asked anything.
--
-- Why each rule:
--   * One client per root. On 0.10 `vim.lsp.get_clients({name})` leaves out clients that are
--     still starting, so a lookup by name alone started a second (and third...) server while
--     the first initialized; two servers then offered contradicting actions. Clients are found
--     here with the starting ones included, by root, and a started client's id is kept.
--   * Every file buffer attached, with or without a filetype: an edit planned from disk for a
--     buffer the server cannot see lands on text it never read (`vim.lsp.enable` attaches only
--     buffers that get a FileType event, and `src/VERSION` gets none).
--   * Every buffer flushed before each request: Neovim sends a request's own buffer's pending
--     didChange and no other, so a plan made right after typing in another file would be made
--     on that file's previous text.

local M = {}

M.NAME = 'llm_patch'
local has_011 = vim.fn.has('nvim-0.11') == 1

--- Settings the plugin itself reads (init.lua keeps them; set by setup()).
M.opts = { lsp = {} }

--- Client ids this plugin started, by root directory.
local started = {}

--- Hooks init.lua installs: the client-side command runner, the applyEdit handler maker.
M.hooks = {}

function M.get_clients(filter)
  return (vim.lsp.get_clients or vim.lsp.get_active_clients)(filter)
end

--- Sends every attached buffer's pending didChange to the client now.
function M.flush(client)
  pcall(function()
    require('vim.lsp._changetracking').flush(client)
  end)
end

function M.request(client, method, params, handler, bufnr)
  M.flush(client)
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
      return vim.lsp.config[M.NAME]
    end)
    if ok and resolved then
      base = vim.deepcopy(resolved)
    end
  end
  if not base then
    local file = vim.api.nvim_get_runtime_file('lsp/' .. M.NAME .. '.lua', false)[1]
    base = file and dofile(file) or { cmd = { 'llm-patch', 'serve' }, root_markers = { '.git' } }
  end
  local cfg = vim.tbl_deep_extend('force', base, M.opts.lsp or {})
  cfg.name = M.NAME
  -- 0.10 takes `capabilities` instead of the defaults, not over them
  cfg.capabilities = vim.tbl_deep_extend('force', vim.lsp.protocol.make_client_capabilities(), cfg.capabilities or {})
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

--- The workspace root a buffer belongs to (the config's root_dir rule, else its markers, else
--- the working directory).
function M.root_of(bufnr, cfg)
  cfg = cfg or M.config()
  if type(cfg.root_dir) == 'string' then
    return cfg.root_dir
  end
  local root = nil
  if type(cfg.root_dir) == 'function' then
    -- 0.11 style root_dir(bufnr, on_dir); most call on_dir synchronously.
    pcall(cfg.root_dir, bufnr, function(dir)
      root = dir
    end)
  end
  return root or find_root(bufnr, cfg.root_markers or { '.git' }) or vim.fn.getcwd()
end

local function stopped(client)
  if has_011 then
    return client:is_stopped()
  end
  return client.is_stopped()
end

local function same_dir(a, b)
  return a and b and vim.fs.normalize(a) == vim.fs.normalize(b)
end

--- A file buffer the server should know: loaded, a normal buffer, named (a file). Filetype
--- does not matter.
function M.attachable(bufnr)
  return vim.api.nvim_buf_is_valid(bufnr)
    and vim.api.nvim_buf_is_loaded(bufnr)
    and vim.bo[bufnr].buftype == ''
    and vim.api.nvim_buf_get_name(bufnr) ~= ''
end

--- Every client of this server, starting ones included.
function M.all()
  local out = {}
  for _, c in ipairs(M.get_clients({ name = M.NAME, _uninitialized = true })) do
    if not stopped(c) then
      out[#out + 1] = c
    end
  end
  return out
end

--- The running or starting client for a buffer's workspace, if there is one: the one already
--- attached to it, else the one rooted where the buffer's root is.
function M.find(bufnr, root)
  local clients = M.all()
  for _, c in ipairs(clients) do
    if c.attached_buffers and c.attached_buffers[bufnr] then
      return c
    end
  end
  root = root or M.root_of(bufnr)
  local id = started[root]
  local mine = id and vim.lsp.get_client_by_id(id)
  if mine and not stopped(mine) then
    return mine
  end
  for _, c in ipairs(clients) do
    if same_dir(c.config.root_dir, root) then
      return c
    end
  end
  return nil
end

--- The client for a buffer's workspace: found, or started without waiting for it.
---@return table|nil client, string|nil error
function M.start(bufnr)
  for _, c in ipairs(M.all()) do
    if c.attached_buffers and c.attached_buffers[bufnr] then
      return c -- the common case (every BufEnter): no configuration to resolve, no root to find
    end
  end
  local cfg = M.config()
  local root = M.root_of(bufnr, cfg)
  local client = M.find(bufnr, root)
  if client then
    return client
  end
  cfg.root_dir = root
  local ok, id
  if has_011 then
    ok, id = pcall(vim.lsp.start, cfg, {
      attach = false,
      silent = true, -- the plugin says why, once
      reuse_client = function(c, conf)
        return c.name == conf.name and not stopped(c) and same_dir(c.config.root_dir, conf.root_dir)
      end,
    })
  else
    ok, id = pcall(vim.lsp.start_client, cfg)
  end
  if not ok or not id then
    local cmd = type(cfg.cmd) == 'table' and table.concat(cfg.cmd, ' ') or tostring(cfg.cmd)
    return nil, ('could not start %s: %s'):format(cmd, tostring(id))
  end
  started[root] = id
  client = vim.lsp.get_client_by_id(id)
  if client then
    M.adopt(client)
  end
  return client
end

function M.attach(client, bufnr)
  if M.attachable(bufnr) and not vim.lsp.buf_is_attached(bufnr, client.id) then
    vim.lsp.buf_attach_client(bufnr, client.id)
  end
end

--- Attaches every file buffer to the client and sends all pending changes: what the server
--- plans against is then exactly what the buffers hold.
function M.sync(client)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    M.attach(client, b)
  end
  M.flush(client)
end

--- URIs of files with unsaved changes in buffers the client does not see (a buffer of a file
--- with a special 'buftype', such as acwrite): the server must not plan them from disk.
function M.unsent_changes(client)
  local out = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(b)
    if
      vim.api.nvim_buf_is_loaded(b)
      and vim.bo[b].modified
      and name ~= ''
      and not name:match('^%a[%w+.-]*://')
      and not vim.lsp.buf_is_attached(b, client.id)
    then
      out[#out + 1] = vim.uri_from_fname(name)
    end
  end
  return out
end

function M.initialized(client)
  return client and client.initialized and not stopped(client)
end

--- Messages the server shows while a plugin command runs repeat the report the plugin shows
--- at its end; they are dropped then, so nothing is said twice.
M.quiet = 0

--- Makes a client this plugin's (once): its requests flush every buffer first, its
--- `workspace/applyEdit` goes through the plugin's checks, its `llmPatch.*` commands (code
--- actions, code lenses) run through the plugin so they are reported like the commands.
function M.adopt(client)
  if client._llm_patch_adopted then
    return
  end
  client._llm_patch_adopted = true
  local request = client.request
  -- 0.11 calls client:request(...) and 0.10 client.request(...): the arguments go through as
  -- they came.
  client.request = function(...)
    M.flush(client)
    return request(...)
  end
  client.handlers = client.handlers or {}
  if M.hooks.apply_edit then
    client.handlers['workspace/applyEdit'] = M.hooks.apply_edit
  end
  -- The server's questions (window/showMessageRequest) are asked like the plugin's own, with
  -- confirm(): answered before the handler returns, a Cancel always offered and the default.
  -- Neovim's own handler would use inputlist() outside a coroutine.
  client.handlers['window/showMessageRequest'] = function(_, params)
    local actions = type(params) == 'table' and type(params.actions) == 'table' and params.actions or {}
    local choices = {}
    for i, action in ipairs(actions) do
      choices[i] = '&' .. tostring(action.title):gsub('&', '&&'):gsub('\n', ' ')
    end
    choices[#choices + 1] = '&Cancel'
    local message = type(params) == 'table' and tostring(params.message) or ''
    local answer = vim.fn.confirm(message, table.concat(choices, '\n'), #choices, 'Question')
    return actions[answer] or vim.NIL
  end
  -- The server outlines reply documents (one symbol per block) and has no symbols for any
  -- other file, where the language's own server answers: Neovim's list handler would say
  -- "No document symbols found" for this client's empty answer beside the other's list.
  local symbols = client.handlers['textDocument/documentSymbol'] or vim.lsp.handlers['textDocument/documentSymbol']
  client.handlers['textDocument/documentSymbol'] = function(err, result, ctx, config)
    if err == nil and (result == nil or result == vim.NIL or (type(result) == 'table' and next(result) == nil)) then
      return
    end
    return symbols(err, result, ctx, config)
  end
  local show = client.handlers['window/showMessage'] or vim.lsp.handlers['window/showMessage']
  client.handlers['window/showMessage'] = function(err, params, ctx, config)
    if M.quiet > 0 then
      return vim.NIL
    end
    return show(err, params, ctx, config)
  end
  client.commands = client.commands or {}
  if M.hooks.command then
    for _, name in ipairs({ 'llmPatch.apply', 'llmPatch.check', 'llmPatch.applyBlock' }) do
      client.commands[name] = function(command, ctx)
        M.hooks.command(client, command, ctx)
      end
    end
  end
end

--- The initialized client for a buffer, attached to every file buffer and synced; waits
--- for a starting server up to `timeout` ms.
---@return table|nil client, string|nil error
function M.ready(bufnr, timeout)
  local client, err = M.start(bufnr)
  if not client then
    return nil, err
  end
  local ok = vim.wait(timeout, function()
    return client.initialized or stopped(client) or false
  end, 20)
  if not ok or not M.initialized(client) then
    return nil, 'the server did not start (see :LspLog)'
  end
  M.adopt(client)
  M.sync(client)
  return client
end

--- 'starting', 'ready' or nil (no client) for a buffer's workspace: for the statusline and
--- for saying something while the server starts.
function M.state(bufnr)
  local client = M.find(bufnr)
  if not client then
    return nil
  end
  return client.initialized and 'ready' or 'starting'
end

return M
