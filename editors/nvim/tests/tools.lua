-- What an experienced Neovim user expects of the plugin, against the real server: previews and
-- reports of near-miss failures, the per-block review, undoing a whole patch, untitled reply
-- buffers, the caller's target, code lenses, failures as virtual text and in the quickfix list,
-- the statusline, <Plug> mappings, :checkhealth and :help, preview on the code-action path.
--
--   LLM_PATCH_SERVER='[...]' nvim --headless --clean -l editors/nvim/tests/tools.lua

local T = dofile(vim.fs.dirname(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p')) .. '/harness.lua')
local check, eq, lines = T.check, T.eq, T.lines

local app_py = {
  'def greet(name):',
  '    return "hi " + name',
  '',
  '',
  'def area(r):',
  '    return 3.14 * r * r',
}
local root = T.project({
  ['src/app.py'] = app_py,
  ['src/util.py'] = { 'def one():', '    return 1' },
  ['src/twin.py'] = app_py, -- defines greet too: a snippet naming no file is ambiguous
  ['notes/reply.llm.md'] = { 'placeholder' },
})

-- Redraws of the statusline, to see it change when the server is ready with no key press
-- (a headless Neovim draws nothing; the plugin asks for the redraw).
local redraws, ready_redraws = 0, nil
local real_cmd = vim.cmd
local function note_redraw(c)
  if type(c) == 'string' and c:match('^redrawstatus') then
    redraws = redraws + 1
  end
end
vim.cmd = setmetatable({}, {
  __call = function(_, c, ...)
    note_redraw(c)
    return real_cmd(c, ...)
  end,
  __index = function(_, k)
    note_redraw(k)
    return real_cmd[k]
  end,
})
vim.api.nvim_create_autocmd('LspAttach', {
  callback = function()
    vim.schedule(function()
      ready_redraws = ready_redraws or redraws
    end)
  end,
})

if T.has_011 then
  vim.lsp.config('llm_patch', { cmd = T.server_cmd })
end
require('llm_patch').setup({ lsp = T.has_011 and {} or { cmd = T.server_cmd } })
vim.cmd('runtime plugin/llm_patch.lua')
local llm = require('llm_patch')

vim.cmd.edit('src/app.py')
local app = vim.api.nvim_get_current_buf()
local client = T.client()
check('the client starts', client ~= nil)
T.wait(2000, function()
  return ready_redraws ~= nil
end)
check('statusline: redrawn when the server is ready, without a key press', (ready_redraws or 0) > 0, ready_redraws)
check('statusline: says ready', llm.statusline() == 'llm-patch', llm.statusline())
vim.cmd = real_cmd

local function reply_of(...)
  local out = { 'Some changes:', '' }
  for _, block in ipairs({ ... }) do
    vim.list_extend(out, block)
    out[#out + 1] = ''
  end
  return out
end
local greet = T.search_replace('src/app.py', { 'def greet(name):', '    return "hi " + name' }, { 'def greet(name):', '    return "hello " + name' })
local area = T.search_replace('src/app.py', { 'def area(r):', '    return 3.14 * r * r' }, { 'def area(r):', '    return 3.14159 * r * r' })
-- close to line 2 of app.py, but not it: a near miss whose closest-match diff spans lines
local near = T.search_replace('src/app.py', { 'def greet(name):', '    return "hey " + name + "!"' }, { 'def greet(name):', '    return name' })

-- ---- near-miss preview and report: no crash, no stray split, the right buffer afterwards ----

vim.cmd.edit('notes/reply.llm.md')
local reply_buf = vim.api.nvim_get_current_buf()
local reply_win = vim.api.nvim_get_current_win()
vim.api.nvim_buf_set_lines(reply_buf, 0, -1, false, reply_of(greet, near))
local previewed
vim.api.nvim_create_autocmd('User', {
  pattern = 'LlmPatchPreview',
  callback = function(ev)
    previewed = ev.data
  end,
})
local wins = #vim.api.nvim_list_wins()
vim.cmd('%LlmPatchPreview')
check('near-miss preview: the split opens with the diff split into lines', T.wait(20000, function()
  return previewed ~= nil
end) and #vim.api.nvim_list_wins() == wins + 1)
local ptext = previewed and table.concat(lines(previewed.buf), '\n') or ''
check('preview with a failing block: the diff of the block that places', ptext:find('+++ b/src/app.py\n@@[^\n]*@@\n def greet%(name%):\n%-    return "hi " %+ name\n%+    return "hello " %+ name') ~= nil, ptext)
check('preview with a failing block: the failed one named as left out', ptext:find('left out (failed): #1 src/app.py', 1, true) ~= nil, ptext)
check('near-miss preview: the closest match is shown', ptext:find('TEXT_NOT_FOUND', 1, true) ~= nil and ptext:find('# -    return "hey', 1, true) ~= nil, ptext)
vim.cmd('normal q')
eq('near-miss preview: q closes the split and goes back to the reply', { wins, reply_win }, { #vim.api.nvim_list_wins(), vim.api.nvim_get_current_win() })

vim.cmd('LlmPatchReport')
local report_buf = vim.api.nvim_get_current_buf()
check(':LlmPatchReport on a near miss: opens', report_buf ~= reply_buf and vim.bo[report_buf].filetype == 'markdown')
vim.cmd('normal q')
local result = T.run('a command after the report', '%LlmPatchCheck')
check('a command after the report: runs on the reply buffer', result.report and #result.report.blocks == 2, vim.inspect(result.report))

-- a ranged command: the reply lines it reports are the buffer's, not the range's (the failed
-- block is on lines 14-23 of the reply; the range starts at line 13)
local function first_lines(r)
  local b = r.report and r.report.blocks[1]
  return b and b.reply_lines and b.reply_lines[1]
end
vim.cmd('enew')
local scratch = vim.api.nvim_get_current_buf()
vim.api.nvim_buf_set_lines(scratch, 0, -1, false, lines(reply_buf))
result = T.run('ranged check of an unnamed buffer', '13,$LlmPatchCheck')
eq('ranged command on an unnamed buffer: reply lines count from its first line', 14, first_lines(result))
check('ranged command on an unnamed buffer: the message says line 14', T.last_note().msg:find('reply lines 14-', 1, true) ~= nil, T.last_note().msg)
vim.api.nvim_win_set_buf(reply_win, reply_buf)
vim.api.nvim_buf_delete(scratch, { force = true })
result = T.run('ranged check of the reply buffer', '13,$LlmPatchCheck')
eq('ranged command: reply lines count from the buffer\'s first line', 14, first_lines(result))
check('ranged command: the message says line 14', T.last_note().msg:find('reply lines 14-', 1, true) ~= nil, T.last_note().msg)

-- a reply with no blocks: said, and no empty split left behind
vim.fn.setreg('a', 'just prose, no edits')
T.run('preview of a reply without blocks', 'LlmPatchPreview a')
eq('preview of a reply without blocks: no split left open', wins, #vim.api.nvim_list_wins())

-- ---- failures: quickfix list, virtual text, lenses, statusline --------------------------------

local qf = vim.fn.getqflist({ title = 1, items = 1 })
check('quickfix: the failed block is listed on its reply lines', #qf.items == 1 and qf.items[1].bufnr == reply_buf and qf.items[1].lnum == 14, vim.inspect(qf))
check('quickfix: its text is the server\'s', qf.items[1] and qf.items[1].text:find('TEXT_NOT_FOUND', 1, true) ~= nil)
local ns = vim.lsp.diagnostic.get_namespace(client.id)
check('reply failures show as virtual text', (vim.diagnostic.config(nil, ns) or {}).virtual_text)
check('code lenses: shown on the reply buffer', T.wait(10000, function()
  for _, lens in ipairs(vim.lsp.codelens.get(reply_buf)) do
    if lens.command and lens.command.title:find('src/app.py:1', 1, true) then
      return true
    end
  end
  return false
end), vim.inspect(vim.lsp.codelens.get(reply_buf)))
-- a lens applies its block, reported like a command
vim.api.nvim_win_set_cursor(0, { 3, 0 })
result = T.run('code lens', function()
  vim.lsp.codelens.run()
end)
eq('code lens: its block applied', '    return "hello " + name', lines(app)[2])
check('code lens: reported', result.report and result.report.ok and T.last_note().msg:find('applied 1 edit', 1, true) ~= nil, T.last_note().msg)
vim.api.nvim_buf_call(app, function()
  vim.cmd('silent undo')
end)

check('statusline: the last result\'s label', llm.statusline():find('^llm%-patch ✓ 1 edit') ~= nil, llm.statusline())
check('<Plug> mappings are defined', vim.fn.maparg('<Plug>(llm-patch-apply)', 'n') ~= '' and vim.fn.maparg('<Plug>(llm-patch-review)', 'x') ~= '')

-- ---- the review: accept or reject each block ---------------------------------------------

vim.api.nvim_buf_set_lines(reply_buf, 0, -1, false, reply_of(greet, area, near))
local reviewed
vim.api.nvim_create_autocmd('User', {
  pattern = 'LlmPatchReview',
  callback = function(ev)
    reviewed = ev.data
  end,
})
vim.cmd('%LlmPatchReview')
check('review: opens', T.wait(20000, function()
  return reviewed ~= nil
end))
local rbuf = reviewed and reviewed.buf
local rlines = rbuf and lines(rbuf) or {}
local function row_of(prefix)
  for i, l in ipairs(rlines) do
    if l:sub(1, #prefix) == prefix then
      return i
    end
  end
end
check('review: placed blocks start accepted, the failed one rejected', row_of('[x] #0') and row_of('[x] #1') and row_of('[ ] #2'), table.concat(rlines, '\n'))
local rtext = table.concat(rlines, '\n')
check('review: each block has its own diff', rtext:find('+    return "hello " + name', 1, true) ~= nil and rtext:find('+    return 3.14159 * r * r', 1, true) ~= nil, rtext)
vim.api.nvim_win_set_cursor(0, { row_of('[ ] #2'), 0 })
vim.cmd('normal x')
rlines = lines(rbuf)
check('review: a failed block cannot be accepted', row_of('[ ] #2') ~= nil and row_of('[x] #2') == nil, table.concat(rlines, '\n'))
check('review: says why', T.last_note().msg:find('block #2 failed', 1, true) ~= nil, T.last_note().msg)
vim.api.nvim_win_set_cursor(0, { row_of('[x] #1') + 2, 0 })
vim.cmd('normal x')
rlines = lines(rbuf)
check('review: x rejects the block under the cursor', row_of('[ ] #1') ~= nil, table.concat(rlines, '\n'))
result = T.run('review: applying the accepted block only', function()
  vim.cmd('normal a')
end)
eq('review: applying the accepted block only', { 'def greet(name):', '    return "hello " + name', '', '', 'def area(r):', '    return 3.14 * r * r' }, lines(app))
eq('review: back in the reply window', reply_win, vim.api.nvim_get_current_win())
vim.api.nvim_buf_call(app, function()
  vim.cmd('silent undo')
end)

-- ---- undo the whole patch ------------------------------------------------------------------

local whole = reply_of(greet, T.search_replace('src/util.py', { '    return 1' }, { '    return 2' }), T.search_replace('src/extra.py', {}, { 'EXTRA = 1' }))
vim.fn.setreg('+', table.concat(whole, '\n'))
vim.api.nvim_set_current_buf(app)
result = T.run('a patch of three files', 'LlmPatchApply')
local util = vim.fn.bufnr(root .. '/src/util.py')
check('a patch of three files: applied', result.report and result.report.ok and lines(util)[2] == '    return 2', vim.inspect(result.report))
vim.api.nvim_buf_set_lines(util, 0, 0, false, {}) -- no change: a no-op keeps the undo state
vim.cmd('LlmPatchUndo')
eq(':LlmPatchUndo: every file of the patch restored', { app_py, { 'def one():', '    return 1' }, -1 }, { lines(app), lines(util), vim.fn.bufnr(root .. '/src/extra.py') })
check(':LlmPatchUndo: says what it undid', T.last_note().msg:find('undid the last patch', 1, true) ~= nil, T.last_note().msg)

-- ---- untitled buffers as replies, and the caller's target -------------------------------------

local sent = {}
local request = client.request
client.request = function(...)
  local args = { ... }
  local method, params = args[1], args[2]
  if type(method) ~= 'string' then
    method, params = args[2], args[3]
  end
  if method == 'workspace/executeCommand' then
    sent[#sent + 1] = params
  end
  return request(...)
end

vim.fn.setreg('+', table.concat(reply_of(greet), '\n'))
vim.api.nvim_set_current_buf(app)
T.run('register reply', 'LlmPatchCheck')
local first = sent[#sent] and sent[#sent].arguments[1] or {}
eq('register reply: the target is the current buffer', vim.uri_from_bufnr(app), first.target)

vim.cmd('enew')
local untitled = vim.api.nvim_get_current_buf()
vim.api.nvim_buf_set_lines(untitled, 0, -1, false, reply_of(greet))
result = T.run('untitled reply buffer', '%LlmPatchApply')
first = sent[#sent] and sent[#sent].arguments[1] or {}
check('untitled reply buffer: its text is sent, not a uri', type(first.text) == 'string' and first.uri == nil, vim.inspect(first))
eq('untitled reply buffer: the target is the alternate buffer', vim.uri_from_bufnr(app), first.target)
eq('untitled reply buffer: applied', '    return "hello " + name', lines(app)[2])
client.request = request
vim.api.nvim_buf_call(app, function()
  vim.cmd('silent undo')
end)

-- code actions in an unnamed buffer: <Plug>(llm-patch-code-action) offers the reply's actions
vim.cmd('enew')
local unnamed = vim.api.nvim_get_current_buf()
vim.api.nvim_buf_set_lines(unnamed, 0, -1, false, reply_of(area))
local offered
local real_select = vim.ui.select
vim.ui.select = function(items, select_opts, on_choice)
  offered = vim.tbl_map(select_opts.format_item, items)
  on_choice(items[1])
end
result = T.run('code action in an :enew buffer', function()
  vim.cmd('execute "normal \\<Plug>(llm-patch-code-action)"')
end)
vim.ui.select = real_select
check('code action in an :enew buffer: the reply actions are offered', offered and offered[1] == 'Apply LLM patch', vim.inspect(offered))
eq('code action in an :enew buffer: Apply applies it', '    return 3.14159 * r * r', lines(app)[6])
vim.api.nvim_buf_call(app, function()
  vim.cmd('silent undo')
end)
vim.api.nvim_set_current_buf(app)
vim.api.nvim_buf_delete(unnamed, { force = true })

-- the target end to end: a snippet that names no file, with `greet` defined in two files, lands
-- in the caller's buffer — the current one for a register, the alternate one for a reply buffer
local snippet = {
  'Here is the friendlier greeting:',
  '',
  '```python',
  'def greet(name):',
  '    return "welcome " + name',
  '```',
}
vim.cmd.edit('src/twin.py')
local twin = vim.api.nvim_get_current_buf()
vim.fn.setreg('+', table.concat(snippet, '\n') .. '\n')
-- a snippet is placed by its definitions' names, not by quoted text: asked first
T.answers = { 2 }
result = T.run('snippet placement declined', 'LlmPatchApply')
check('snippet placement: asked first', (T.questions[#T.questions] or ''):find('confirm before applying', 1, true) ~= nil and T.questions[#T.questions]:find('snippet', 1, true) ~= nil, T.questions[#T.questions])
eq('snippet placement declined: nothing applied', app_py, lines(twin))
check('snippet placement declined: reported not applied', result.report and result.report.ok == false, vim.inspect(result.report))
result = T.run('pathless snippet from a register', 'LlmPatchApply')
eq('pathless snippet from a register: lands in the current buffer', '    return "welcome " + name', lines(twin)[2])
eq('pathless snippet from a register: the other file untouched', app_py, lines(app))
vim.api.nvim_buf_call(twin, function()
  vim.cmd('silent undo')
end)
vim.api.nvim_set_current_buf(app)
vim.cmd('enew')
vim.api.nvim_buf_set_lines(0, 0, -1, false, snippet)
result = T.run('pathless snippet in a reply buffer', '%LlmPatchApply')
eq('pathless snippet in a reply buffer: lands in the alternate buffer', '    return "welcome " + name', lines(app)[2])
eq('pathless snippet in a reply buffer: the other file untouched', app_py, lines(twin))
vim.api.nvim_buf_call(app, function()
  vim.cmd('silent undo')
end)

-- ---- preview before apply on the code-action path (setting) ----------------------------------

llm.setup({ preview = true, lsp = T.has_011 and {} or { cmd = T.server_cmd } })
vim.api.nvim_set_current_buf(reply_buf)
vim.api.nvim_buf_set_lines(reply_buf, 0, -1, false, reply_of(area))
previewed = nil
vim.lsp.buf.code_action({
  range = { start = { 1, 0 }, ['end'] = { vim.api.nvim_buf_line_count(reply_buf), 0 } },
  apply = true,
  filter = function(action)
    return action.title:match('^Apply LLM patch') ~= nil
  end,
})
check('code action with preview = true: the diff first', T.wait(20000, function()
  return previewed ~= nil
end))
eq('code action with preview = true: nothing applied yet', app_py, lines(app))
result = T.run('code action preview: a applies', function()
  vim.cmd('normal a')
end)
eq('code action preview: a applies', '    return 3.14159 * r * r', lines(app)[6])

-- ---- :checkhealth and :help ----------------------------------------------------------------

vim.cmd('checkhealth llm_patch')
local health = table.concat(lines(0), '\n')
check(':checkhealth llm_patch: the server and its version', health:find('llm-patch 0.', 1, true) ~= nil and health:find('server command:', 1, true) ~= nil, health)
check(':checkhealth llm_patch: Python, grammars, encoding, buffers', health:find('Python 3', 1, true) ~= nil
  and health:find('tree-sitter grammars', 1, true) ~= nil
  and health:find('position encoding', 1, true) ~= nil
  and health:find('attached buffers', 1, true) ~= nil, health)
vim.cmd('tabclose')
local ok = pcall(vim.cmd, 'help llm_patch')
check(':help llm_patch opens the help', ok and vim.fn.expand('%:t') == 'llm_patch.txt', vim.fn.expand('%:t'))
vim.cmd('helpclose')
ok = pcall(vim.cmd, 'help llm-patch')
check(':help llm-patch opens the help', ok and vim.fn.expand('%:t') == 'llm_patch.txt', vim.fn.expand('%:t'))

T.finish()
