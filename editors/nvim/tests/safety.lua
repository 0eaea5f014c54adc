-- The plugin never puts text in the wrong place and never loses unsaved work, against the real
-- server, with the client started the generic way (vim.lsp.enable on 0.11; on 0.10 a FileType
-- autocmd with vim.lsp.start, as nvim-lspconfig does) and no setup() call:
--
--   * a plan made right after typing in another buffer lands on the right line (code actions)
--   * an edit pinned to an older version of a buffer (0 included) is refused whole
--   * a buffer with no filetype is synced before planning (src/VERSION)
--   * deleting a file with unsaved changes asks first, naming it ("no" refuses); every file operation is
--     confirmed first; :LlmPatchUndo brings a deleted file back
--   * a new file in a new directory can be written
--
--   LLM_PATCH_SERVER='[...]' nvim --headless --clean -l editors/nvim/tests/safety.lua

local T = dofile(vim.fs.dirname(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p')) .. '/harness.lua')
local check, eq, lines = T.check, T.eq, T.lines

local root = T.project({
  ['src/i18n.py'] = { 'MESSAGE = "hello"', 'COUNT = 1' },
  ['src/VERSION'] = { 'version = 1', 'channel = stable' },
  ['src/old.py'] = { 'x = 1' },
  ['notes/reply.llm.md'] = { 'placeholder' },
})

if T.has_011 then
  vim.lsp.config('llm_patch', { cmd = T.server_cmd })
  vim.lsp.enable('llm_patch')
else
  vim.api.nvim_create_autocmd('FileType', {
    callback = function(ev)
      vim.lsp.start({ name = 'llm_patch', cmd = T.server_cmd, root_dir = vim.fs.root(ev.buf, { '.git' }) }, { bufnr = ev.buf })
    end,
  })
end
vim.cmd('runtime plugin/llm_patch.lua')

-- ---- a plan made right after typing in another buffer --------------------------------------

-- A file with no filetype, opened and changed before any server runs: nothing attaches it
-- (vim.lsp.enable and lspconfig start on FileType) until the plugin does.
vim.cmd.edit('src/VERSION')
local version_buf = vim.api.nvim_get_current_buf()
vim.api.nvim_buf_set_lines(version_buf, 0, 0, false, { '# another', '# line' })

vim.cmd.edit('src/i18n.py')
local i18n = vim.api.nvim_get_current_buf()
local client = T.client()
check('the client starts (generic setup)', client ~= nil)

vim.cmd.edit('notes/reply.llm.md')
local reply_buf = vim.api.nvim_get_current_buf()
local reply = { 'Bump the count:', '' }
vim.list_extend(reply, T.search_replace('src/i18n.py', { 'COUNT = 1' }, { 'COUNT = 3' }))
vim.api.nvim_buf_set_lines(reply_buf, 0, -1, false, reply)
T.wait(300, function()
  return false
end)

-- The user inserts a line at the top of the target and, at once, selects the reply and runs
-- the code action: the server has not been told about the new line yet.
vim.api.nvim_buf_set_lines(i18n, 0, 0, false, { '# header' })
local notes_before = #T.notes
local result = T.run('code action after typing', function()
  vim.lsp.buf.code_action({
    range = { start = { 1, 0 }, ['end'] = { #reply, 0 } },
    apply = true,
    filter = function(action)
      return action.title:match('^Apply LLM patch') ~= nil
    end,
  })
end)
eq('code action after typing: the edit lands on the right line', { '# header', 'MESSAGE = "hello"', 'COUNT = 3' }, lines(i18n))
check('code action: reported like a command (the server\'s summary)', result.report and result.report.ok, vim.inspect(result))
local said = vim.list_slice(T.notes, notes_before + 1)
eq('code action: said once', 1, #said)
check('code action: names the unsaved file', (said[1] or {}).msg and said[1].msg:find('Unsaved: src/i18n.py', 1, true) ~= nil, vim.inspect(said))
check('code action: "1 edit", not "1 edits"', (said[1] or {}).msg and said[1].msg:find('1 edits', 1, true) == nil, vim.inspect(said))

-- An edit pinned to an older version of a buffer is refused whole, whatever the version
-- (Neovim's own check skips version 0 and every document after the first).
local handler = client.handlers['workspace/applyEdit']
local answer
local uri = vim.uri_from_bufnr(i18n)
local other = vim.uri_from_fname(root .. '/notes/reply.llm.md')
local function text_edit(u, version, text)
  return { textDocument = { uri = u, version = version }, edits = { { range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } }, newText = text } } }
end
local before = lines(i18n)
local reply_before = lines(reply_buf)
answer = handler(nil, { edit = { documentChanges = { text_edit(uri, 0, 'STALE\n') } } }, { client_id = client.id })
check('version 0 of a changed buffer: refused', answer.applied == false and answer.failureReason:find('src/i18n.py changed since the patch was planned', 1, true) ~= nil, vim.inspect(answer))
eq('version 0 of a changed buffer: nothing applied', before, lines(i18n))
local current = vim.lsp.util.buf_versions[reply_buf]
answer = handler(nil, {
  edit = { documentChanges = { text_edit(other, current, 'FIRST\n'), text_edit(uri, vim.lsp.util.buf_versions[i18n] - 1, 'STALE\n') } },
}, { client_id = client.id })
check('a stale second document: the whole edit refused', answer.applied == false, vim.inspect(answer))
eq('a stale second document: the first one untouched too', reply_before, lines(reply_buf))
answer = handler(nil, { edit = { documentChanges = { text_edit(uri, vim.lsp.util.buf_versions[i18n], '# current\n') } } }, { client_id = client.id })
check('the current version: applied', answer.applied == true and lines(i18n)[1] == '# current', vim.inspect(answer))
vim.api.nvim_buf_call(i18n, function()
  vim.cmd('silent undo')
end)

-- ---- a buffer with no filetype is synced before planning -----------------------------------

eq('src/VERSION has no filetype', '', vim.bo[version_buf].filetype)
check('the plugin attached the buffer with no filetype', vim.lsp.buf_is_attached(version_buf, client.id))
vim.fn.setreg('+', table.concat(T.search_replace('src/VERSION', { 'channel = stable' }, { 'channel = beta' }), '\n'))
result = T.run('unsaved buffer without filetype', 'LlmPatchApply')
eq('unsaved buffer without filetype: the edit lands on its unsaved text', { '# another', '# line', 'version = 1', 'channel = beta' }, lines(version_buf))
check('unsaved buffer without filetype: reported applied', result.report and result.report.ok, vim.inspect(result.report))

-- a file with unsaved changes in a buffer the server cannot be shown (a special 'buftype'): the
-- command names it as dirty and the server refuses to plan it from disk
vim.fn.writefile({ 'x = 1' }, root .. '/src/special.py')
local special = vim.api.nvim_create_buf(true, false)
vim.api.nvim_buf_set_name(special, root .. '/src/special.py')
vim.bo[special].buftype = 'acwrite'
vim.api.nvim_buf_set_lines(special, 0, -1, false, { '# typed, unsaved', 'x = 1' })
vim.fn.setreg('+', table.concat(T.search_replace('src/special.py', { 'x = 1' }, { 'x = 2' }), '\n'))
result = T.run('a file changed in a buffer the server cannot see', 'LlmPatchApply')
check('a file changed in a buffer the server cannot see: refused', result.report and result.report.ok == false, vim.inspect(result.report))
eq('a file changed in a buffer the server cannot see: untouched', { '# typed, unsaved', 'x = 1' }, lines(special))
vim.api.nvim_buf_delete(special, { force = true })

-- ---- file operations ---------------------------------------------------------------------

vim.cmd.edit('src/old.py')
local old = vim.api.nvim_get_current_buf()
vim.api.nvim_buf_set_lines(old, 0, -1, false, { 'x = 2  # unsaved work' })
vim.fn.setreg('+', '*** Begin Patch\n*** Delete File: src/old.py\n*** End Patch\n')
local asked = #T.questions
T.answers = { 2 } -- keep the unsaved work: apply nothing
result = T.run('delete an unsaved file', 'LlmPatchApply')
check('delete an unsaved file: refused', result.report and result.report.ok == false, vim.inspect(result.report))
local said = T.last_note().msg
check('delete an unsaved file: the message names the file and its unsaved changes', said:find('src/old.py', 1, true) ~= nil and said:find('unsaved', 1, true) ~= nil, said)
check('delete an unsaved file: asked first, naming the file', #T.questions == asked + 1 and T.questions[#T.questions]:find('src/old.py has unsaved changes', 1, true) ~= nil, T.questions[#T.questions])
-- the plugin asks too, whatever the server sent, and a "no" refuses naming the file
T.answers = { 2 }
answer = handler(nil, { edit = { documentChanges = { { kind = 'delete', uri = vim.uri_from_bufnr(old) } } } }, { client_id = client.id })
check('a delete of an unsaved buffer reaching the editor: refused naming it', answer.applied == false and answer.failureReason:find('src/old.py has unsaved changes', 1, true) ~= nil, vim.inspect(answer))
T.answers = { 2 }
answer = handler(nil, { edit = { documentChanges = { { kind = 'rename', oldUri = vim.uri_from_bufnr(old), newUri = vim.uri_from_fname(root .. '/src/new_name.py') } } } }, { client_id = client.id })
check('a move of an unsaved buffer reaching the editor: refused naming it', answer.applied == false and answer.failureReason:find('src/old.py has unsaved changes', 1, true) ~= nil, vim.inspect(answer))
check('delete an unsaved file: the file stays on disk', vim.uv.fs_stat(root .. '/src/old.py') ~= nil)
eq('delete an unsaved file: the unsaved work stays', { { 'x = 2  # unsaved work' }, true }, vim.api.nvim_buf_is_valid(old) and { lines(old), vim.bo[old].modified } or {})

vim.api.nvim_buf_call(old, function()
  vim.cmd('silent write')
end)
T.answers = { 2 }
result = T.run('delete, declined', 'LlmPatchApply')
check('delete: asked first, naming the file', T.questions[#T.questions]:find('delete src/old.py', 1, true) ~= nil, T.questions[#T.questions])
check('delete, declined: the file stays', vim.uv.fs_stat(root .. '/src/old.py') ~= nil and result.report and result.report.ok == false)
T.answers = { 1 }
result = T.run('delete, confirmed', 'LlmPatchApply')
check('delete, confirmed: the file is gone', vim.uv.fs_stat(root .. '/src/old.py') == nil and result.report and result.report.ok, vim.inspect(result.report))
T.run('undo a delete', function()
  vim.cmd('LlmPatchUndo')
  T.done = {}
end)
eq(':LlmPatchUndo: the deleted file is back', { 'x = 2  # unsaved work' }, vim.uv.fs_stat(root .. '/src/old.py') and vim.fn.readfile(root .. '/src/old.py') or {})

-- the server's own questions (window/showMessageRequest) are asked with confirm(), Cancel the
-- default: answered before the handler returns, whatever runs it
local ask = client.handlers['window/showMessageRequest']
local asked_before = #T.questions
T.answers = { 1 }
eq('a question from the server: its action chosen', { title = 'Go ahead' }, ask and ask(nil, { type = 3, message = 'LLM patch: lose it?', actions = { { title = 'Go ahead' } } }, { client_id = client.id }))
check('a question from the server: asked with its words', (T.questions[asked_before + 1] or ''):find('LLM patch: lose it?', 1, true) ~= nil, T.questions[asked_before + 1])
T.answers = { 2 }
eq('a question from the server: Cancel answers no action', vim.NIL, ask and ask(nil, { type = 3, message = 'LLM patch: lose it?', actions = { { title = 'Go ahead' } } }, { client_id = client.id }))

-- an empty outline (a file that is not a reply) says nothing: the language's own server
-- answers for it; a reply's outline reaches Neovim's list handler
local outline = client.handlers['textDocument/documentSymbol']
local said = {}
local notify = vim.notify
vim.notify = function(msg, ...)
  said[#said + 1] = msg
end
local listed = nil
outline(nil, {}, { client_id = client.id, bufnr = 0, method = 'textDocument/documentSymbol', params = { textDocument = { uri = vim.uri_from_bufnr(0) } } }, { on_list = function(l)
  listed = l
end })
vim.notify = notify
eq('an empty outline: no "No document symbols found"', {}, said)
local symbol = { name = '✓ a.py:2 (exact)', kind = 1, range = { start = { line = 0, character = 0 }, ['end'] = { line = 3, character = 0 } }, selectionRange = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 4 } } }
outline(nil, { symbol }, { client_id = client.id, bufnr = 0, method = 'textDocument/documentSymbol', params = { textDocument = { uri = vim.uri_from_bufnr(0) } } }, { on_list = function(l)
  listed = l
end })
eq('a reply outline: listed', '✓ a.py:2 (exact)', listed and listed.items[1] and listed.items[1].text:match('✓ a.py:2 %(exact%)'))

-- ---- a new file in a new directory --------------------------------------------------------

vim.fn.setreg('+', '*** Begin Patch\n*** Add File: pkg/sub/new.py\n+VALUE = 1\n*** End Patch\n')
result = T.run('new file in a new directory', 'LlmPatchApply')
check('new file: its creation was confirmed', T.questions[#T.questions]:find('create pkg/sub/new.py', 1, true) ~= nil, T.questions[#T.questions])
local new = vim.fn.bufnr(root .. '/pkg/sub/new.py')
eq('new file: a buffer with its text', { 'VALUE = 1' }, new > 0 and lines(new) or {})
local wrote = new > 0 and pcall(vim.api.nvim_buf_call, new, function()
  vim.cmd('silent write')
end)
check('new file: it can be written (its directory exists)', wrote and vim.uv.fs_stat(root .. '/pkg/sub/new.py') ~= nil)

T.finish()
