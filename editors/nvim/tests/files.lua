-- Files a patch creates, moves and deletes, and files with CRLF line ends, against the real
-- server, checked by what ends up on disk and in the buffers:
--
--   * :LlmPatchUndo leaves a created file alone once the user changed it (saved or not), and
--     removes it only while it holds exactly what the patch put there
--   * a V4A Update + Move writes nothing the user did not write; :LlmPatchUndo moves it back
--   * after a V4A patch, checking the same reply says every block is already applied
--   * a CRLF file keeps exactly \r\n after a patch and :w, whether it was open or not
--   * a delete or move of a buffer with unsaved changes asks; "write first" keeps the work
--
--   LLM_PATCH_SERVER='[...]' nvim --headless --clean -l editors/nvim/tests/files.lua

local T = dofile(vim.fs.dirname(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p')) .. '/harness.lua')
local check, eq, lines = T.check, T.eq, T.lines

local root = T.project({
  ['src/main.py'] = { 'print(1)' },
  ['src/keep.py'] = { 'def keep():', '    return 1' },
  ['src/gone.py'] = { 'GONE = 1' },
  ['src/moving.py'] = { 'M = 1' },
})

if T.has_011 then
  vim.lsp.config('llm_patch', { cmd = T.server_cmd })
end
require('llm_patch').setup({ lsp = T.has_011 and {} or { cmd = T.server_cmd } })
vim.cmd('runtime plugin/llm_patch.lua')
local llm = require('llm_patch')

vim.cmd.edit('src/main.py')
local main = vim.api.nvim_get_current_buf()
local client = T.client()
check('the client starts', client ~= nil)

local function bytes(path)
  local f = io.open(root .. '/' .. path, 'rb')
  if not f then
    return nil
  end
  local data = f:read('*a')
  f:close()
  return data
end
local function write_bytes(path, data)
  local f = assert(io.open(root .. '/' .. path, 'wb'))
  f:write(data)
  f:close()
end
local function buf_of(path)
  local b = vim.fn.bufnr(root .. '/' .. path)
  return b > 0 and vim.api.nvim_buf_is_loaded(b) and b or nil
end
local function apply(name, reply)
  vim.fn.setreg('+', reply)
  vim.api.nvim_set_current_buf(main)
  return T.run(name, 'LlmPatchApply')
end
--- Runs one part; an error in it is a failure of that part, and the next part still runs.
local function part(name, fn)
  local ok, err = pcall(fn)
  check(name .. ': ran to the end', ok, err)
  vim.cmd('silent! %bwipeout!')
  vim.cmd.edit(root .. '/src/main.py')
  main = vim.api.nvim_get_current_buf()
  for _, path in ipairs({ 'src/fresh.py', 'src/kept.py', 'src/added.py', 'src/moved.py' }) do
    os.remove(root .. '/' .. path)
  end
end
local function undo(name)
  T.run(name, function()
    vim.cmd('LlmPatchUndo')
    T.done = {}
  end)
  return T.last_note().msg
end

local result, said

-- ---- a created file the user saved and changed -----------------------------------------------
part('created files', function()

local add = '*** Begin Patch\n*** Add File: src/fresh.py\n+FRESH = 1\n*** End Patch\n'
result = apply('create a file', add)
check('create a file: applied', result.report and result.report.ok, vim.inspect(result.report))
local fresh = buf_of('src/fresh.py')
eq('create a file: its buffer has the text', { 'FRESH = 1' }, fresh and lines(fresh) or {})
vim.api.nvim_buf_call(fresh, function()
  vim.cmd('silent write')
end)
vim.api.nvim_buf_set_lines(fresh, 1, 1, false, { 'TYPED = 2' })
said = undo('undo after the user wrote and typed')
eq('created, written, typed: :LlmPatchUndo keeps the file on disk', 'FRESH = 1\n', bytes('src/fresh.py'))
check('created, written, typed: the buffer and its typing stay', fresh and vim.api.nvim_buf_is_valid(fresh) and vim.deep_equal(lines(fresh), { 'FRESH = 1', 'TYPED = 2' }), fresh and vim.api.nvim_buf_is_valid(fresh) and vim.inspect(lines(fresh)) or 'buffer wiped')
check('created, written, typed: said why it was left', said:find('src/fresh.py', 1, true) ~= nil and said:find('changed since the patch', 1, true) ~= nil, said)

-- written after typing: the file on disk is the user's now
vim.api.nvim_buf_call(fresh, function()
  vim.cmd('silent write')
end)
vim.cmd('bwipeout! ' .. fresh)
os.remove(root .. '/src/fresh.py')
result = apply('create again', add)
fresh = buf_of('src/fresh.py')
vim.api.nvim_buf_set_lines(fresh, 0, -1, false, { 'MINE = 3' })
vim.api.nvim_buf_call(fresh, function()
  vim.cmd('silent write')
end)
said = undo('undo after the user rewrote and wrote it')
eq('created, then rewritten and written: the file stays', 'MINE = 3\n', bytes('src/fresh.py'))
check('created, then rewritten and written: its buffer stays', vim.api.nvim_buf_is_valid(fresh) and lines(fresh)[1] == 'MINE = 3')

-- untouched since the patch: undo removes it, buffer and all
vim.cmd('bwipeout! ' .. fresh)
os.remove(root .. '/src/fresh.py')
result = apply('create, untouched', add)
fresh = buf_of('src/fresh.py')
said = undo('undo an untouched created file')
check('created, untouched: :LlmPatchUndo removes it', bytes('src/fresh.py') == nil and not (fresh and vim.api.nvim_buf_is_valid(fresh)), said)
-- written as the patch made it (no typing): the content is what the patch put there
result = apply('create, written unchanged', add)
fresh = buf_of('src/fresh.py')
vim.api.nvim_buf_call(fresh, function()
  vim.cmd('silent write')
end)
said = undo('undo a created file written unchanged')
check('created, written unchanged: :LlmPatchUndo removes it', bytes('src/fresh.py') == nil, said)

end)

-- ---- V4A Update + Move ---------------------------------------------------------------------
part('the V4A move', function()

local move = table.concat({
  '*** Begin Patch',
  '*** Update File: src/keep.py',
  '*** Move to: src/kept.py',
  '@@',
  ' def keep():',
  '-    return 1',
  '+    return 2',
  '*** Add File: src/added.py',
  '+ADDED = 1',
  '*** End Patch',
  '',
}, '\n')
local keep_disk = bytes('src/keep.py')
for _, open in ipairs({ false, true }) do
  local how = open and 'open' or 'not open'
  if open then
    vim.cmd.edit('src/keep.py')
  end
  result = apply('move (' .. how .. ')', move)
  check(('move (%s): applied'):format(how), result.report and result.report.ok, vim.inspect(result.report))
  eq(('move (%s): the old path is gone'):format(how), nil, bytes('src/keep.py'))
  eq(('move (%s): nothing saved the user did not save (the moved file holds its old text)'):format(how), keep_disk, bytes('src/kept.py'))
  local kept = buf_of('src/kept.py')
  eq(('move (%s): the buffer has the new text, unsaved'):format(how), { { 'def keep():', '    return 2' }, true }, { kept and lines(kept) or {}, kept and vim.bo[kept].modified or false })
  eq(('move (%s): no buffer for the old path'):format(how), nil, buf_of('src/keep.py'))

  -- item 9: the reply's own blocks are already applied now
  vim.fn.setreg('+', move)
  vim.api.nvim_set_current_buf(main)
  local checked = T.run('check after the move (' .. how .. ')', 'LlmPatchCheck')
  local statuses = {}
  for _, b in ipairs(checked.report and checked.report.blocks or {}) do
    statuses[#statuses + 1] = b.already_applied and 'already applied' or (b.status .. (b.error and (' ' .. b.error.code) or '') .. (b.match and (' ' .. b.match) or ''))
  end
  eq(('after a V4A apply (%s): every block already applied'):format(how), { 'already applied', 'already applied' }, statuses)

  said = undo('undo the move (' .. how .. ')')
  eq(('undo the move (%s): the file is back with its text'):format(how), keep_disk, bytes('src/keep.py'))
  eq(('undo the move (%s): the moved-to file is gone'):format(how), nil, bytes('src/kept.py'))
  eq(('undo the move (%s): the created file is gone'):format(how), nil, bytes('src/added.py'))
  local back = buf_of('src/keep.py')
  check(('undo the move (%s): a buffer at the old path with the old text, unmodified'):format(how), back and vim.deep_equal(lines(back), { 'def keep():', '    return 1' }) and not vim.bo[back].modified, said)
  eq(('undo the move (%s): no buffer left for the moved-to path'):format(how), nil, buf_of('src/kept.py'))
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(b)
    if name:find('keep', 1, true) or name:find('kept', 1, true) or name:find('added', 1, true) then
      vim.cmd('bwipeout! ' .. b)
    end
  end
end

end)

-- ---- a move Neovim cannot do: the edits meant for the moved file land nowhere ---------------

part('a move that fails', function()
  local handler = client.handlers['workspace/applyEdit']
  local dest = vim.uri_from_fname(root .. '/src/dest.py')
  T.answers = { 1 }
  local answer = handler(nil, {
    edit = {
      documentChanges = {
        { kind = 'rename', oldUri = vim.uri_from_fname(root .. '/src/ghost.py'), newUri = dest },
        { textDocument = { uri = dest, version = vim.NIL }, edits = { { range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } }, newText = 'X = 1\n' } } },
      },
    },
  }, { client_id = client.id })
  check('a move that fails: the edit is refused, saying so', answer.applied == false and tostring(answer.failureReason):find('could not be moved', 1, true) ~= nil, vim.inspect(answer))
  eq('a move that fails: nothing at the destination, no buffer either', { nil, nil }, { bytes('src/dest.py'), buf_of('src/dest.py') })
end)

-- ---- CRLF files ----------------------------------------------------------------------------
part('CRLF', function()

local crlf = 'a = 1\r\nb = 2\r\nc = 3\r\n'
local crlf_reply = T.search_replace('src/dos.py', { 'b = 2' }, { 'b = 2', 'y = x + 1', 'z = 4' })
local want = 'a = 1\r\nb = 2\r\ny = x + 1\r\nz = 4\r\nc = 3\r\n'
for _, open in ipairs({ false, true }) do
  local how = open and 'open' or 'not open'
  write_bytes('src/dos.py', crlf)
  if open then
    vim.cmd.edit('src/dos.py')
    eq('CRLF file opened as dos', 'dos', vim.bo.fileformat)
  end
  result = apply('CRLF (' .. how .. ')', table.concat(crlf_reply, '\n'))
  check(('CRLF (%s): applied'):format(how), result.report and result.report.ok, vim.inspect(result.report))
  local dos = buf_of('src/dos.py')
  if dos then
    vim.api.nvim_buf_call(dos, function()
      vim.cmd('silent write')
    end)
  end
  eq(('CRLF (%s): the saved file has exactly \\r\\n line ends'):format(how), want, bytes('src/dos.py'))
  if dos then
    vim.cmd('bwipeout! ' .. dos)
  end
end

end)

-- ---- a delete or move of a buffer with unsaved changes asks ---------------------------------
part('unsaved delete or move', function()

for _, case in ipairs({
  { what = 'delete', reply = '*** Begin Patch\n*** Delete File: src/gone.py\n*** End Patch\n', path = 'src/gone.py', typed = 'GONE = 2  # unsaved' },
  { what = 'move', reply = '*** Begin Patch\n*** Update File: src/moving.py\n*** Move to: src/moved.py\n@@\n-N = 9  # unsaved\n+N = 10\n*** End Patch\n', path = 'src/moving.py', typed = 'N = 9  # unsaved' },
}) do
  vim.cmd.edit(case.path)
  local b = vim.api.nvim_get_current_buf()
  local disk = bytes(case.path)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, { case.typed })
  local asked = #T.questions
  T.answers = { 2 } -- the second choice: cancel
  result = apply(case.what .. ' of an unsaved buffer, cancelled', case.reply)
  local q = T.questions[asked + 1] or ''
  check(('%s of an unsaved buffer: asked, naming the file'):format(case.what), #T.questions > asked and q:find(case.path, 1, true) ~= nil and q:find('unsaved', 1, true) ~= nil, q)
  eq(('%s of an unsaved buffer, cancelled: the file and the work stay'):format(case.what), { disk, { case.typed }, true }, { bytes(case.path), vim.api.nvim_buf_is_valid(b) and lines(b) or {}, vim.api.nvim_buf_is_valid(b) and vim.bo[b].modified })
  T.answers = { 1, 1 } -- write it first, then yes to the file operation
  result = apply(case.what .. ' of an unsaved buffer, written first', case.reply)
  check(('%s of an unsaved buffer, written first: applied'):format(case.what), result.report and result.report.ok, vim.inspect(result.report))
  eq(('%s of an unsaved buffer, written first: the old path is gone'):format(case.what), nil, bytes(case.path))
  said = undo('undo the ' .. case.what)
  eq(('%s of an unsaved buffer: :LlmPatchUndo brings the written work back'):format(case.what), case.typed .. '\n', bytes(case.path))
end

end)

T.finish()
