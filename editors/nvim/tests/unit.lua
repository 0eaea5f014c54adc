-- Unit tests of the plugin's pure parts (reading a report, showing its words) and of its command
-- definitions, without a server:  nvim --headless --clean -l editors/nvim/tests/unit.lua

local script_dir = vim.fs.dirname(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p'))
vim.opt.runtimepath:prepend(vim.fs.dirname(script_dir))

local R = require('llm_patch.report')
local failures, passed = 0, 0

local function check(name, cond, detail)
  if cond then
    passed = passed + 1
    io.stdout:write('ok - ' .. name .. '\n')
  else
    failures = failures + 1
    io.stdout:write('FAIL - ' .. name .. (detail and (': ' .. detail) or '') .. '\n')
  end
end

local function eq(name, want, got)
  check(name, vim.deep_equal(want, got), ('\n  want %s\n  got  %s'):format(vim.inspect(want), vim.inspect(got)))
end

local function block(over)
  return vim.tbl_extend('force', {
    index = 0,
    format = 'search-replace',
    path = 'src/a.py',
    status = 'applied',
    match = 'exact',
    reply_lines = { 3, 9 },
  }, over or {})
end

local failed = block({
  index = 1,
  path = 'src/b.py',
  status = 'failed',
  match = vim.NIL,
  reply_lines = { 12, 20 },
  error = { code = 'TEXT_NOT_FOUND', message = 'SEARCH text not found', details = { closest = 4 } },
})

-- parse ---------------------------------------------------------------------------------------

for _, bad in ipairs({ vim.NIL, 3, 'ok', {}, { ok = true }, { blocks = {} }, { ok = 'yes', blocks = {} } }) do
  check('parse rejects ' .. vim.inspect(bad, { newline = ' ', indent = '' }), R.parse(bad) == nil)
end
local parsed = R.parse({ ok = true, blocks = { {}, { index = 7, reply_lines = { 1 } }, 5 }, files = vim.NIL })
eq('parse fills missing fields', {
  { index = 0, format = 'unknown', status = 'unknown', already_applied = false },
  { index = 7, format = 'unknown', status = 'unknown', already_applied = false },
}, parsed and parsed.blocks)
eq('parse tolerates a null files list', {}, parsed and parsed.files)
local json_null = R.parse(vim.json.decode('{"ok":false,"blocks":[{"index":0,"path":null,"match":null,"error":null}],"files":[],"warnings":[]}'))
check('parse maps JSON nulls to nil', json_null and json_null.blocks[1].path == nil and json_null.blocks[1].error == nil)
local kept = R.parse({ ok = false, blocks = { failed } })
eq('parse keeps a failed block', {
  index = 1,
  format = 'search-replace',
  path = 'src/b.py',
  status = 'failed',
  reply_lines = { 12, 20 },
  error = { code = 'TEXT_NOT_FOUND', message = 'SEARCH text not found', details = { closest = 4 } },
  already_applied = false,
}, kept and kept.blocks[1])
check('parse keeps already_applied', (R.parse({ ok = true, blocks = { { already_applied = true } } }) or { blocks = { {} } }).blocks[1].already_applied == true)

-- the server's words, shown -------------------------------------------------------------------

-- Reports as the real server returns them (editors/fixtures/reports.json; the repository's
-- tests/editors/test_report_fixtures.py keeps their words equal to the server's).
local fixtures_file = vim.fs.dirname(vim.fs.dirname(script_dir)) .. '/fixtures/reports.json'
local fixtures = vim.json.decode(table.concat(vim.fn.readfile(fixtures_file), '\n')).reports
local function server_report(name)
  return R.parse(fixtures[name])
end

local msg, level = R.notification(server_report('applied'))
eq('notification of a clean apply', 'llm-patch: applied 2 edits in 2 files.', msg)
eq('clean apply is INFO', vim.log.levels.INFO, level)

msg, level = R.notification(server_report('refused'))
eq(
  'notification of an atomic refusal',
  'llm-patch: 1 of 2 blocks failed; nothing was applied. #1 b.py (reply lines 10-18): TEXT_NOT_FOUND — SEARCH text not found in b.py (1 warning)',
  msg
)
eq('refusal is ERROR', vim.log.levels.ERROR, level)

msg = R.notification(server_report('partial'))
check('notification of a partial apply', msg:find('^llm%-patch: applied 1 edit, 2 failed%. #1 .*%(and 1 more%)$') ~= nil, msg)

msg = R.notification(server_report('checked'))
eq('a check says what can be placed', 'llm-patch: all 2 edits can be placed in 2 files.', msg)

msg, level = R.notification(R.parse({ ok = false, blocks = {}, summary = 'no edit blocks found in the reply', level = 'warning' }))
eq('the server\'s level is kept', vim.log.levels.WARN, level)
eq('the server\'s sentence is said as is', 'llm-patch: no edit blocks found in the reply', msg)

msg, level = R.notification(R.parse({ ok = false, blocks = {}, level = 'loud' }))
eq('a report without words (an older server) still says something', 'llm-patch: the server reported a failure.', msg)
eq('... at ERROR when not ok', vim.log.levels.ERROR, level)

-- preview and report text ---------------------------------------------------------------------

local lines = R.preview_lines(server_report('refused'))
eq('preview of a failing check: summary, keys, problems', {
  '# 1 of 2 blocks failed; nothing was applied. #1 b.py (reply lines 10-18): TEXT_NOT_FOUND — SEARCH text not found in b.py (1 warning)',
  '# a: apply these edits   q: discard',
  '# #1 b.py (reply lines 10-18): TEXT_NOT_FOUND — SEARCH text not found in b.py',
  '# SYNTAX_BROKEN a.py: does not parse',
}, lines)

lines = R.preview_lines(server_report('checked'))
eq('preview header and diffs', {
  '# all 2 edits can be placed in 2 files.',
  '# a: apply these edits   q: discard',
  '--- a/a.py',
  '+++ b/a.py',
  '@@ -1 +1 @@',
  '-x',
  '+y',
  '--- a/b.py',
  '+++ b/b.py',
  '@@ -1 +1 @@',
  '-u',
  '+v',
}, lines)

local report_lines = R.report_lines(server_report('applied'), 'apply')
eq('report lines: a title, then the server\'s text', { '# llm-patch apply report', '' }, vim.list_slice(report_lines, 1, 2))
local text = table.concat(report_lines, '\n')
check(
  'report lines list blocks and fenced diffs',
  text:find('| 0 | ✓ applied | a.py | search-replace | exact | 1-8 |', 1, true) ~= nil and text:find('```diff\n--- a/a.py', 1, true) ~= nil,
  text
)
eq('report lines end with the text\'s last line', '```', report_lines[#report_lines])

-- text into buffer lines ------------------------------------------------------------------

eq('lines: split at every break', { 'a', 'b', 'c' }, R.lines('a\nb\r\nc\n'))
eq('lines: one empty line for empty text', { '' }, R.lines(''))
eq('lines: inner empty lines kept', { 'a', '', 'b' }, R.lines('a\n\nb'))

local near_miss = R.parse({
  ok = false,
  blocks = { { index = 0, path = 'a.py', status = 'failed', reply_lines = { 3, 9 }, error = { code = 'TEXT_NOT_FOUND', message = 'm' } } },
  files = {},
  summary = 'nothing applied. #0 a.py: TEXT_NOT_FOUND — closest match:\n@@ -1 +1 @@\n-x\n+y',
  problems = { '#0 a.py: TEXT_NOT_FOUND — closest match:\n@@ -1 +1 @@\n-x\n+y' },
})
lines = R.preview_lines(near_miss)
check('preview of a near miss: no line holds a line break', #vim.tbl_filter(function(l)
  return l:find('\n') ~= nil
end, lines) == 0, vim.inspect(lines))
eq('preview of a near miss: the closest-match diff, commented line by line', '# -x', lines[#lines - 1])
check('report lines of a near miss: no line holds a line break', #vim.tbl_filter(function(l)
  return l:find('\n') ~= nil
end, R.report_lines(near_miss, 'check')) == 0)

-- choosing blocks ------------------------------------------------------------------------------

local reply_text = 'intro\na.py\n```\nX\n```\nmore prose\nb.py\n```\nY\n```\n'
local two = { { index = 0, reply_lines = { 2, 5 } }, { index = 1, reply_lines = { 7, 10 } } }
eq('only_blocks: the others blanked, line numbers kept', 'intro\n\n\n\n\nmore prose\nb.py\n```\nY\n```\n', R.only_blocks(reply_text, two, { [1] = true }))
eq('only_blocks: all kept is the reply', reply_text, R.only_blocks(reply_text, two, { [0] = true, [1] = true }))

-- quickfix ---------------------------------------------------------------------------------

eq('quickfix: a failure on the reply buffer\'s lines', {
  { bufnr = 7, lnum = 13, text = '#0 a.py: TEXT_NOT_FOUND — closest match:', type = 'E' },
}, R.quickfix_items(near_miss, { bufnr = 7, line_offset = 10 }))
eq('quickfix: a register reply points at the file', {
  { filename = '/root/a.py', lnum = 1, text = '#0 a.py: TEXT_NOT_FOUND — closest match:', type = 'E' },
}, R.quickfix_items(near_miss, { root = '/root' }))
eq('quickfix: nothing for a clean report', {}, R.quickfix_items(server_report('applied'), {}))
eq('label: the server\'s', '✓ 2 edits', server_report('applied').label)

-- commands ------------------------------------------------------------------------------------

vim.cmd('runtime plugin/llm_patch.lua')
for _, name in ipairs({ 'LlmPatchApply', 'LlmPatchCheck', 'LlmPatchPreview', 'LlmPatchReview', 'LlmPatchReport', 'LlmPatchUndo', 'LlmPatchQuickfix' }) do
  check(':' .. name .. ' exists', vim.fn.exists(':' .. name) == 2)
end
local cmds = vim.api.nvim_get_commands({})
check(':LlmPatchApply takes a range, a register and a bang', cmds.LlmPatchApply.range ~= nil and cmds.LlmPatchApply.nargs == '?' and cmds.LlmPatchApply.bang)
check(':LlmPatchCheck takes a range', cmds.LlmPatchCheck.range ~= nil)
check(':LlmPatchReview takes a range', cmds.LlmPatchReview.range ~= nil)
for _, plug in ipairs({ 'apply', 'check', 'preview', 'review', 'undo', 'code-action' }) do
  check('<Plug>(llm-patch-' .. plug .. ') is mapped', vim.fn.maparg('<Plug>(llm-patch-' .. plug .. ')', 'n') ~= '')
end
local health = require('llm_patch.health')
local script = vim.fn.tempname()
vim.fn.writefile({ '#!/opt/venv/bin/python3.12', 'import sys' }, script)
vim.fn.setfperm(script, 'rwx------')
eq('health: a script\'s Python is its #! line', '/opt/venv/bin/python3.12', health.python_of({ script, 'serve' }))
vim.fn.delete(script)
if vim.fn.exepath('python3') ~= '' then
  eq('health: a python command is its own interpreter', vim.fn.exepath('python3'), health.python_of({ 'python3', '-m', 'lsp_server' }))
end
eq('health: a missing command has none', nil, health.python_of({ 'no-such-llm-patch-binary' }))

local lsp_cfg = dofile(vim.fs.dirname(script_dir) .. '/lsp/llm_patch.lua')
eq('lsp/llm_patch.lua starts `llm-patch serve`', { 'llm-patch', 'serve' }, lsp_cfg.cmd)
check('lsp/llm_patch.lua has no filetypes filter', lsp_cfg.filetypes == nil)
check('lsp/llm_patch.lua has root markers', vim.tbl_contains(lsp_cfg.root_markers, '.git'))

-- a server that cannot start is said once, not on every buffer entered
local said = {}
local notify = vim.notify
vim.notify = function(msg)
  said[#said + 1] = msg
end
require('llm_patch').setup({ lsp = { cmd = { 'no-such-llm-patch-binary', 'serve' } } })
local dir = vim.fn.tempname()
vim.fn.mkdir(dir, 'p')
for _, name in ipairs({ 'a.txt', 'b.txt', 'a.txt' }) do
  vim.cmd.edit(dir .. '/' .. name)
end
vim.notify = notify
check('a missing server: said once', #said == 1 and said[1]:find('no-such-llm-patch-binary', 1, true) ~= nil, vim.inspect(said))
require('llm_patch').setup({ autostart = false })
vim.cmd('silent %bwipeout!')
vim.fn.delete(dir, 'rf')

-- the help: doc/tags is shipped and lists every tag of doc/llm_patch.txt
local doc = vim.fs.dirname(script_dir) .. '/doc'
local want_tags = {}
for _, l in ipairs(vim.fn.readfile(doc .. '/llm_patch.txt')) do
  for tag in l:gmatch('%*([^%s*|]+)%*') do
    want_tags[#want_tags + 1] = tag
  end
end
local have_tags = vim.tbl_map(function(l)
  return vim.split(l, '\t')[1]
end, vim.fn.filereadable(doc .. '/tags') == 1 and vim.fn.readfile(doc .. '/tags') or {})
table.sort(want_tags)
table.sort(have_tags)
eq('doc/tags is current (nvim --headless -c "helptags editors/nvim/doc" -c q)', want_tags, have_tags)
local ok_help = pcall(vim.cmd, 'help llm_patch')
check(':help llm_patch works', ok_help and vim.fn.expand('%:t') == 'llm_patch.txt')

io.stdout:write(('%d passed, %d failed\n'):format(passed, failures))
os.exit(failures == 0 and 0 or 1)
