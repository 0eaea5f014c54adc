-- What the real-server test scripts share (e2e.lua, safety.lua, tools.lua): `ok`/`FAIL` lines, the
-- notifications a user would see, a clipboard for a headless machine, answers to the
-- plugin's confirmation questions, a throwaway project, waiting for the plugin's events.
--
--   local T = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/harness.lua')

local T = {}

local script_dir = vim.fs.dirname(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p'))
T.plugin_dir = vim.fs.dirname(script_dir)
vim.opt.runtimepath:prepend(T.plugin_dir)
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. 'F'

T.server_cmd = vim.json.decode(os.getenv('LLM_PATCH_SERVER') or '["llm-patch","serve"]')
T.has_011 = vim.fn.has('nvim-0.11') == 1

T.failures, T.passed = 0, 0
function T.check(name, cond, detail)
  if cond then
    T.passed = T.passed + 1
    io.stdout:write('ok - ' .. name .. '\n')
  else
    T.failures = T.failures + 1
    io.stdout:write('FAIL - ' .. name .. (detail and (': ' .. tostring(detail)) or '') .. '\n')
  end
end

function T.eq(name, want, got)
  T.check(name, vim.deep_equal(want, got), ('\n  want %s\n  got  %s'):format(vim.inspect(want), vim.inspect(got)))
end

function T.finish()
  io.stdout:write(('%d passed, %d failed\n'):format(T.passed, T.failures))
  if T.root then
    vim.fn.delete(T.root, 'rf')
  end
  os.exit(T.failures == 0 and 0 or 1)
end

-- Notifications are part of what the user sees: record them.
T.notes = {}
vim.notify = function(msg, level)
  T.notes[#T.notes + 1] = { msg = msg, level = level }
  io.stdout:write('  notify[' .. tostring(level) .. '] ' .. msg .. '\n')
end
function T.last_note()
  return T.notes[#T.notes] or { msg = '' }
end

-- The plugin asks with vim.fn.confirm: record each question, answer from T.answers (1 = the
-- first choice, "Yes"), 1 when it is empty.
T.questions, T.answers = {}, {}
vim.fn.confirm = function(msg)
  T.questions[#T.questions + 1] = msg
  local answer = table.remove(T.answers, 1) or 1
  io.stdout:write(('  confirm(%s): %s\n'):format(answer, (msg:gsub('\n', ' | '))))
  return answer
end

-- A clipboard provider (a headless CI machine has none), so the default register `+` works.
local clipboard = { ['+'] = { {}, 'v' }, ['*'] = { {}, 'v' } }
vim.g.clipboard = {
  name = 'test',
  copy = {
    ['+'] = function(lines, regtype)
      clipboard['+'] = { lines, regtype }
    end,
    ['*'] = function(lines, regtype)
      clipboard['*'] = { lines, regtype }
    end,
  },
  paste = {
    ['+'] = function()
      return clipboard['+']
    end,
    ['*'] = function()
      return clipboard['*']
    end,
  },
}

--- A project in a temporary directory (files: path → lines), made the working directory.
function T.project(files)
  T.root = vim.fn.tempname()
  vim.fn.mkdir(T.root .. '/.git', 'p')
  for path, lines in pairs(files) do
    vim.fn.mkdir(vim.fs.dirname(T.root .. '/' .. path), 'p')
    vim.fn.writefile(lines, T.root .. '/' .. path)
  end
  vim.cmd.cd(T.root)
  return T.root
end

T.done = nil
vim.api.nvim_create_autocmd('User', {
  pattern = 'LlmPatchDone',
  callback = function(ev)
    T.done = ev.data or {}
  end,
})

function T.wait(ms, cond)
  return vim.wait(ms, cond, 20)
end

--- Runs `fn` (a command string or a function) and waits for the plugin's LlmPatchDone.
function T.run(name, fn)
  T.done = nil
  if type(fn) == 'string' then
    vim.cmd(fn)
  else
    fn()
  end
  local ok = T.wait(20000, function()
    return T.done ~= nil
  end)
  T.check(name .. ': finished', ok)
  return T.done or {}
end

function T.lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

--- The llm_patch client, once initialized.
function T.client()
  T.wait(20000, function()
    local c = vim.lsp.get_clients({ name = 'llm_patch' })[1]
    return c ~= nil and c.initialized
  end)
  return vim.lsp.get_clients({ name = 'llm_patch' })[1]
end

--- A SEARCH/REPLACE reply for one file.
function T.search_replace(path, search, replace)
  local out = { path, '```' , '<<<<<<< SEARCH' }
  vim.list_extend(out, search)
  out[#out + 1] = '======='
  vim.list_extend(out, replace)
  vim.list_extend(out, { '>>>>>>> REPLACE', '```' })
  return out
end

return T
