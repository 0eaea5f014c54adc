-- :checkhealth llm_patch — is the server there, which one, with which Python and grammars,
-- which buffers it sees, in which position encoding.

local M = {}

local health = vim.health

-- Run by the server's Python: its version, the package's, the tree-sitter grammars.
local PROBE = [[
import json, sys
out = {"python": sys.version.split()[0], "executable": sys.executable}
try:
    import lsp_server
    out["llm_patch"] = lsp_server.__version__
    from lsp_server.resolve.syntax import supported_languages, load_language
    out["grammars"] = len(supported_languages())
    load_language("python")
    out["grammar_loads"] = True
except Exception as err:
    out["error"] = f"{type(err).__name__}: {err}"
print(json.dumps(out))
]]

--- The Python a server command runs: the command itself when it is a Python, else the one
--- its script's `#!` line names.
function M.python_of(cmd)
  local exe = vim.fn.exepath(cmd[1])
  if exe == '' then
    return nil
  end
  if vim.fs.basename(exe):match('^python') then
    return exe
  end
  local f = io.open(exe, 'r')
  local first = f and f:read('*l') or ''
  if f then
    f:close()
  end
  local shebang = first:match('^#!%s*(%S+)')
  if shebang and vim.fs.basename(shebang) == 'env' then
    local name = first:match('^#!%s*%S+%s+(%S+)')
    return name and vim.fn.exepath(name) ~= '' and vim.fn.exepath(name) or nil
  end
  return shebang
end

local function probe(python)
  local ok, res = pcall(function()
    return vim.system({ python, '-c', PROBE }, { text = true }):wait(20000)
  end)
  if not ok or not res or res.code ~= 0 then
    return nil, ok and res and (res.stderr ~= '' and res.stderr or ('exit ' .. tostring(res.code))) or tostring(res)
  end
  local decoded_ok, info = pcall(vim.json.decode, res.stdout)
  if not decoded_ok then
    return nil, res.stdout
  end
  return info
end

function M.check()
  local server = require('llm_patch.server')
  health.start('llm-patch: the server')
  if vim.fn.has('nvim-0.10') == 0 then
    health.error('Neovim 0.10 or newer is needed for the commands')
  else
    health.ok('Neovim ' .. tostring(vim.version()))
  end
  local cfg = server.config()
  local cmd = type(cfg.cmd) == 'table' and cfg.cmd or nil
  if not cmd then
    health.info('the server command is a function (an in-process or TCP server); not checked')
  elseif vim.fn.exepath(cmd[1]) == '' then
    health.error(('server not found: `%s` is not executable or not on PATH'):format(cmd[1]), {
      'pip install -e . (in a clone), pipx install . or uv tool install .',
      "or point the plugin at it: vim.lsp.config('llm_patch', { cmd = { '/path/to/llm-patch', 'serve' } })",
    })
  else
    health.ok(('server command: %s (%s)'):format(table.concat(cmd, ' '), vim.fn.exepath(cmd[1])))
    local python = M.python_of(cmd)
    if not python then
      health.warn('could not tell which Python runs the server')
    else
      local info, err = probe(python)
      if not info then
        health.error(('%s could not be asked about llm-patch: %s'):format(python, err or '?'))
      else
        health.ok(('Python %s (%s)'):format(info.python, info.executable))
        if info.error then
          health.error('llm-patch in that Python: ' .. info.error)
        else
          health.ok('llm-patch ' .. info.llm_patch)
          if info.grammar_loads then
            health.ok(('tree-sitter grammars: %d available, loading works'):format(info.grammars))
          else
            health.warn('tree-sitter grammars: none load (structural edits will be refused)')
          end
        end
      end
    end
  end

  health.start('llm-patch: clients')
  local clients = server.all()
  if #clients == 0 then
    health.info('no llm-patch client is running (it starts with a file, or the first :LlmPatch* command)')
  end
  for _, c in ipairs(clients) do
    local info = c.server_info or {}
    local state = c.initialized and 'running' or 'starting'
    health.ok(('client %d %s: %s %s, root %s'):format(c.id, state, info.name or '?', info.version or '?', c.config.root_dir or '?'))
    health.info('position encoding: ' .. tostring(c.offset_encoding))
    local names = {}
    for b in pairs(c.attached_buffers or {}) do
      if vim.api.nvim_buf_is_valid(b) then
        names[#names + 1] = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':.')
      end
    end
    table.sort(names)
    health.info(('attached buffers (%d): %s'):format(#names, table.concat(names, ', ')))
    local unattached = {}
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if server.attachable(b) and not (c.attached_buffers or {})[b] then
        unattached[#unattached + 1] = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':.')
      end
    end
    if #unattached > 0 then
      health.warn(('file buffers the server does not see yet (a command attaches them): %s'):format(table.concat(unattached, ', ')))
    end
  end
  if #clients > 1 then
    local roots = {}
    for _, c in ipairs(clients) do
      roots[#roots + 1] = tostring(c.config.root_dir)
    end
    health.info('one client per workspace root: ' .. table.concat(roots, ', '))
  end
end

return M
