-- End-to-end test of the Neovim plugin against the real llm-patch server.
--
--   LLM_PATCH_SERVER='["/path/.venv/bin/python","-m","lsp_server"]' nvim --headless --clean -l editors/nvim/tests/e2e.lua
--
-- LLM_PATCH_SERVER is a JSON array (default: ["llm-patch","serve"]). The script makes its own
-- project in a temporary directory, drives the user commands exactly as a user would (a reply
-- in the clipboard register, :LlmPatchApply, `u`), prints one `ok`/`FAIL` line per check and
-- exits non-zero on any failure. tests/editors/test_nvim.py runs it from pytest.

-- The set-up every real-server script shares: runtimepath, ok/FAIL lines, recorded
-- notifications, confirmation questions answered "Yes", a clipboard for a headless machine.
local T = dofile(vim.fs.dirname(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p')) .. '/harness.lua')
local server_cmd, has_011 = T.server_cmd, T.has_011
local check, eq = T.check, T.eq
local notes, questions = T.notes, T.questions

-- ---- the project ----------------------------------------------------------------------------

local root = vim.fn.tempname()
vim.fn.mkdir(root .. '/.git', 'p')
vim.fn.mkdir(root .. '/src', 'p')
vim.fn.mkdir(root .. '/notes', 'p')

local app_py = {
  'import math',
  '',
  '',
  'def greet(name):',
  '    return "hi " + name',
  '',
  '',
  'def area(r):',
  '    return math.pi * r * r',
}
local util_py = {
  'def clamp(x, lo, hi):',
  '    if x < lo:',
  '        return lo',
  '    if x > hi:',
  '        return hi',
  '    return x',
}
vim.fn.writefile(app_py, root .. '/src/app.py')
vim.fn.writefile(util_py, root .. '/src/util.py')
vim.cmd.cd(root)

-- A realistic reply: prose, two SEARCH/REPLACE blocks for an open (and unsaved) buffer, and a
-- unified diff for a file that is not open.
local reply = [[
Sure! Two small changes.

First, a friendlier greeting and a docstring:

src/app.py
```python
<<<<<<< SEARCH
def greet(name):
    return "hi " + name
=======
def greet(name):
    return f"Hello, {name}!"
>>>>>>> REPLACE
```

src/app.py
```python
<<<<<<< SEARCH
def area(r):
    return math.pi * r * r
=======
def area(r):
    """Area of a circle of radius r."""
    return math.pi * r ** 2
>>>>>>> REPLACE
```

A new module for the constants:

src/consts.py
```python
<<<<<<< SEARCH
=======
TAU = 6.283185307179586
>>>>>>> REPLACE
```

Then make `clamp` reject an empty range:

```diff
--- a/src/util.py
+++ b/src/util.py
@@ -1,3 +1,5 @@
 def clamp(x, lo, hi):
+    if lo > hi:
+        raise ValueError("empty range")
     if x < lo:
         return lo
```

That's all.
]]

local done = nil
vim.api.nvim_create_autocmd('User', {
  pattern = 'LlmPatchDone',
  callback = function(ev)
    done = ev.data or {}
  end,
})
local previewed = nil
vim.api.nvim_create_autocmd('User', {
  pattern = 'LlmPatchPreview',
  callback = function(ev)
    previewed = ev.data
  end,
})

local function run_and_wait(cmd)
  done = nil
  vim.cmd(cmd)
  local ok = vim.wait(20000, function()
    return done ~= nil
  end, 20)
  check(cmd .. ' finished', ok)
  return done or {}
end

local lines = T.lines

local function undo(buf)
  vim.api.nvim_buf_call(buf, function()
    vim.cmd('silent undo')
  end)
end

-- ---- the client -----------------------------------------------------------------------------

if has_011 then
  -- The 0.11 way: lsp/llm_patch.lua from 'runtimepath', the command overridden by the user.
  vim.lsp.config('llm_patch', { cmd = server_cmd })
  require('llm_patch').setup({})
  eq('vim.lsp.config resolves lsp/llm_patch.lua', { '.git', '.hg', '.jj', '.svn' }, vim.lsp.config.llm_patch.root_markers)
  check('lsp/llm_patch.lua has no filetypes filter', vim.lsp.config.llm_patch.filetypes == nil)
else
  require('llm_patch').setup({ lsp = { cmd = server_cmd } })
end
vim.cmd('runtime plugin/llm_patch.lua')
check(':LlmPatchApply is defined', vim.fn.exists(':LlmPatchApply') == 2)

-- ---- 0. one server per workspace, however quickly files are opened --------------------------

-- The processes this Neovim started that are llm-patch servers.
local function servers()
  local n = 0
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    local ok, cmdline = pcall(vim.fn.readfile, '/proc/' .. pid .. '/cmdline', 'b')
    local text = ok and table.concat(cmdline, ' '):gsub('%z', ' ') or ''
    if text:find(server_cmd[#server_cmd], 1, true) then
      n = n + 1
    end
  end
  return n
end
local function clients()
  return #vim.lsp.get_clients({ name = 'llm_patch', _uninitialized = true })
end

-- A user opens three files in a row (BufReadPost and BufEnter each, while the server starts).
vim.cmd.edit('src/util.py')
vim.cmd.edit('src/app.py')
vim.cmd('split src/util.py')
vim.cmd('wincmd p')
local app = vim.api.nvim_get_current_buf()
eq('one server: one client while it starts', 1, clients())
check('statusline: says the server is starting', require('llm_patch').statusline() == 'llm-patch …', require('llm_patch').statusline())
local before_notes = #notes
local code_action_key = vim.lsp.buf.code_action
local asked = false
vim.lsp.buf.code_action = function()
  asked = true
end
vim.cmd('execute "normal \\<Plug>(llm-patch-code-action)"')
vim.lsp.buf.code_action = code_action_key
check('<Plug>(llm-patch-code-action) while starting: says so', #notes > before_notes and notes[before_notes + 1].msg:find('starting', 1, true) ~= nil, vim.inspect(notes[before_notes + 1]))
check('<Plug>(llm-patch-code-action): then asks for code actions', asked)
vim.wait(20000, function()
  local c = vim.lsp.get_clients({ name = 'llm_patch' })[1]
  return c ~= nil and c.initialized
end, 20)
vim.cmd('split src/app.py')
vim.cmd('close')
eq('one server: one client once started', 1, clients())
eq('one server: one `llm-patch serve` process', 1, servers())
eq('statusline: the server is ready, no result yet', 'llm-patch', require('llm_patch').statusline())
vim.cmd('only')
-- An unsaved change the reply does not know about: the server must see the buffer, not the
-- disk, and one `u` after the patch must keep this change.
vim.api.nvim_buf_set_lines(app, 1, 2, false, { '# unsaved local note' })
local app_before = lines(app)

local client_ok = vim.wait(20000, function()
  local c = vim.lsp.get_clients({ name = 'llm_patch', bufnr = app })[1]
  return c ~= nil and c.initialized
end, 20)
check('the server starts and attaches to the opened file', client_ok)
local client = vim.lsp.get_clients({ name = 'llm_patch' })[1]
check('the client is rooted at the project', client and client.config.root_dir == root, client and client.config.root_dir)

-- ---- 1. apply from the clipboard, then undo -------------------------------------------------

vim.fn.setreg('+', reply)
local result = run_and_wait('LlmPatchApply')
local report = result.report or {}
check('apply: report ok', report.ok == true, vim.inspect(result.err or report))
eq('apply: every block applied', { 'applied', 'applied', 'applied', 'applied' }, vim.tbl_map(function(b)
  return b.status
end, report.blocks or {}))
eq('apply: the open buffer has the patch and keeps the unsaved note', {
  'import math',
  '# unsaved local note',
  '',
  'def greet(name):',
  '    return f"Hello, {name}!"',
  '',
  '',
  'def area(r):',
  '    """Area of a circle of radius r."""',
  '    return math.pi * r ** 2',
}, lines(app))
local util = vim.fn.bufnr(root .. '/src/util.py')
check('apply: the file that was not open is loaded into a buffer', util > 0 and vim.api.nvim_buf_is_loaded(util))
eq('apply: that buffer has the patch', {
  'def clamp(x, lo, hi):',
  '    if lo > hi:',
  '        raise ValueError("empty range")',
  '    if x < lo:',
  '        return lo',
  '    if x > hi:',
  '        return hi',
  '    return x',
}, util > 0 and lines(util) or {})
eq('apply: nothing written to disk (buffers are the user\'s to save)', util_py, vim.fn.readfile(root .. '/src/util.py'))
local consts = vim.fn.bufnr(root .. '/src/consts.py')
eq('apply: the new file is a buffer with its content', { 'TAU = 6.283185307179586' }, consts > 0 and lines(consts) or {})
check('apply: creating src/consts.py was confirmed first', #questions == 1 and questions[1]:find('create src/consts.py', 1, true) ~= nil, vim.inspect(questions))
local last = notes[#notes] or {}
check('apply: the notification names the result', (last.msg or ''):find('applied 4 edits in 3 files', 1, true) ~= nil, last.msg)
check('apply: the notification lists unsaved buffers', (last.msg or ''):find('src/util.py', 1, true) ~= nil, last.msg)

undo(app)
eq('undo: one u reverts the whole patch of the open buffer, keeping the note', app_before, lines(app))
if util > 0 then
  undo(util)
  eq('undo: one u reverts the whole patch of the loaded buffer', util_py, lines(util))
end
if consts > 0 then
  undo(consts)
  eq('undo: one u empties the created file\'s buffer', { '' }, lines(consts))
end

-- ---- 2. a reply with a failing block: nothing applied, a diagnostic on the block ------------

local bad_reply = {
  'Two edits, the second one is stale:',
  '',
  'src/app.py',
  '```python',
  '<<<<<<< SEARCH',
  'import math',
  '=======',
  'import math',
  'import sys',
  '>>>>>>> REPLACE',
  '```',
  '',
  'src/util.py',
  '```python',
  '<<<<<<< SEARCH',
  'def clamp(value, low, high):',
  '    return max(low, min(value, high))',
  '=======',
  'def clamp(value, low, high):',
  '    return min(max(value, low), high)',
  '>>>>>>> REPLACE',
  '```',
}
vim.fn.writefile(bad_reply, root .. '/notes/reply.llm.md')
vim.cmd.edit('notes/reply.llm.md')
local reply_buf = vim.api.nvim_get_current_buf()
local app_mid = lines(app)
result = run_and_wait('%LlmPatchApply')
report = result.report or {}
check('failing block: report not ok', report.ok == false, vim.inspect(report))
local statuses = vim.tbl_map(function(b)
  return b.status
end, report.blocks or {})
check('failing block: the second block failed', statuses[2] == 'failed', vim.inspect(statuses))
check('failing block: with TEXT_NOT_FOUND', ((report.blocks or {})[2] or {}).error and report.blocks[2].error.code == 'TEXT_NOT_FOUND', vim.inspect(report.blocks))
eq('failing block: atomic, the good block was not applied either', app_mid, lines(app))
last = notes[#notes] or {}
check('failing block: an error notification', last.level == vim.log.levels.ERROR and (last.msg or ''):find('TEXT_NOT_FOUND', 1, true) ~= nil, last.msg)
local diag_ok = vim.wait(10000, function()
  for _, d in ipairs(vim.diagnostic.get(reply_buf)) do
    if d.code == 'TEXT_NOT_FOUND' then
      return true
    end
  end
  return false
end, 20)
check('failing block: a TEXT_NOT_FOUND diagnostic on the reply buffer', diag_ok, vim.inspect(vim.diagnostic.get(reply_buf)))
local diag = vim.tbl_filter(function(d)
  return d.code == 'TEXT_NOT_FOUND'
end, vim.diagnostic.get(reply_buf))[1]
check('failing block: the diagnostic sits on the failing block (lines 13-22)', diag and diag.lnum >= 12 and diag.lnum <= 21, diag and tostring(diag.lnum))
check('failing block: the diagnostic names its source', diag and diag.source == 'llm-patch', diag and diag.source)

-- ---- 3. a ranged apply runs only the selected block ------------------------------------------

result = run_and_wait('3,11LlmPatchApply')
report = result.report or {}
check('range: only the selected block ran, and it applied', report.ok == true and #(report.blocks or {}) == 1, vim.inspect(report))
eq('range: the selected block landed', { 'import math', 'import sys', '# unsaved local note' }, vim.list_slice(lines(app), 1, 3))
undo(app)
eq('range: undone with one u', app_before, lines(app))

-- ---- 4. preview: the diff in a scratch split, q discards, a applies --------------------------

local small = table.concat({
  'src/app.py',
  '```python',
  '<<<<<<< SEARCH',
  'import math',
  '=======',
  'import math',
  'import os',
  '>>>>>>> REPLACE',
  '```',
}, '\n')
vim.fn.setreg('a', small)
previewed = nil
vim.cmd('LlmPatchPreview a')
check('preview: the split opens', vim.wait(20000, function()
  return previewed ~= nil
end, 20))
local pbuf = previewed and previewed.buf
local ptext = pbuf and table.concat(lines(pbuf), '\n') or ''
check('preview: shows the unified diff', ptext:find('+import os', 1, true) ~= nil and ptext:find('src/app.py', 1, true) ~= nil, ptext)
check('preview: the split is a diff scratch buffer', pbuf and vim.bo[pbuf].filetype == 'diff' and vim.bo[pbuf].buftype == 'nofile')
eq('preview: nothing applied yet', app_before, lines(app))

vim.api.nvim_set_current_buf(pbuf)
done = nil
vim.fn.maparg('q', 'n', false, true).callback()
check('preview q: the split is closed', not vim.api.nvim_buf_is_valid(pbuf))
eq('preview q: nothing applied', app_before, lines(app))

previewed = nil
vim.cmd('LlmPatchPreview a')
vim.wait(20000, function()
  return previewed ~= nil
end, 20)
pbuf = previewed and previewed.buf
done = nil
vim.api.nvim_set_current_buf(pbuf)
vim.fn.maparg('a', 'n', false, true).callback()
check('preview a: applies', vim.wait(20000, function()
  return done ~= nil
end, 20))
eq('preview a: the edit landed', { 'import math', 'import os', '# unsaved local note' }, vim.list_slice(lines(app), 1, 3))
undo(app)
eq('preview a: one u undoes it', app_before, lines(app))

-- ---- 5. an empty register is refused before the server is asked -----------------------------

vim.fn.setreg('b', '')
local before_notes = #notes
vim.cmd('LlmPatchApply b')
check('empty register: a warning, nothing sent', #notes == before_notes + 1 and notes[#notes].msg:find('CLIPBOARD_MISSING', 1, true) ~= nil, vim.inspect(notes[#notes]))

T.root = root -- removed by T.finish
T.finish()
