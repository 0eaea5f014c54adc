-- The server's `workspace/applyEdit`, applied the way this plugin promises:
--
--   * A document edit pinned to a version lands only on that version of the buffer. Neovim
--     checks versions itself only when they are above 0 (its didOpen version is 0) and only
--     for the first document of an edit, so a plan made before the latest keystrokes would be
--     applied at shifted positions; here every pinned document is checked, 0 included, and a
--     stale one refuses the whole edit (nothing applied, the reason to the server).
--   * A file operation (create, rename, delete) is asked for first: Neovim performs them on
--     disk at once. Deleting or renaming a file whose buffer has unsaved changes is refused,
--     naming the file: Neovim would wipe the buffer, and the work with it.
--   * A created file's directories are made, so the new buffer can be written (E212 otherwise).
--   * Each patch is its own undo step in every buffer it changes, and is recorded (buffers,
--     undo states, files created, renamed, deleted) for :LlmPatchUndo.

local M = {}

local util = vim.lsp.util

--- What the last applyEdit did, for the command's notification and for undo.
---@type table|nil
M.last_patch = nil
--- Buffers changed by edits since `begin()`.
M.changed = {}

function M.begin()
  M.changed = {}
end

local function is_nil(v)
  return v == nil or v == vim.NIL
end

local function fname(uri)
  return vim.uri_to_fname(uri)
end

local function rel(path)
  return vim.fn.fnamemodify(path, ':.')
end

--- The buffer of a file, if one exists (never creates one). Names are compared whole:
--- bufnr() would read the path as a pattern.
local function existing_buf(path)
  path = vim.fs.normalize(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.fs.normalize(vim.api.nvim_buf_get_name(buf)) == path then
      return buf
    end
  end
  return nil
end

local function modified(path)
  local b = existing_buf(path)
  return b and vim.api.nvim_buf_is_loaded(b) and vim.bo[b].modified or false
end

--- The current version Neovim reports for a buffer (the changedtick after the first change,
--- 0 before it), or nil when the buffer is not loaded.
function M.buf_version(bufnr)
  if not (bufnr and vim.api.nvim_buf_is_loaded(bufnr)) then
    return nil
  end
  return rawget(util.buf_versions, bufnr) or (util.buf_versions[bufnr] or 0)
end

--- Why the edit must not be applied, or nil.
function M.stale_reason(edit)
  for _, change in ipairs(edit.documentChanges or {}) do
    local doc = change.textDocument
    if doc and not is_nil(doc.version) then
      local path = fname(doc.uri)
      local b = existing_buf(path)
      local now = M.buf_version(b)
      if now ~= doc.version then
        return ('%s changed since the patch was planned (version %d, now %s); nothing was applied: run it again'):format(
          rel(path),
          doc.version,
          now and tostring(now) or 'closed'
        )
      end
    end
  end
  return nil
end

--- The file operations of an edit, as {kind, path, to?} with absolute paths.
function M.operations(edit)
  local ops = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == 'create' then
      ops[#ops + 1] = { kind = 'create', path = fname(change.uri), options = change.options }
    elseif change.kind == 'delete' then
      ops[#ops + 1] = { kind = 'delete', path = fname(change.uri), options = change.options }
    elseif change.kind == 'rename' then
      ops[#ops + 1] = { kind = 'rename', path = fname(change.oldUri), to = fname(change.newUri), options = change.options }
    end
  end
  return ops
end

--- The buffers with unsaved changes an edit's file operations would act on, as
--- {buf, path, what} (a delete or a move goes to the disk at once, past the buffer).
function M.unsaved(ops)
  local out, seen = {}, {}
  local function add(path, what)
    local b = existing_buf(path)
    if b and vim.api.nvim_buf_is_loaded(b) and vim.bo[b].modified and not seen[b] then
      seen[b] = true
      out[#out + 1] = { buf = b, path = path, what = what }
    end
  end
  for _, op in ipairs(ops) do
    if op.kind == 'delete' then
      add(op.path, 'deletes it')
    elseif op.kind == 'rename' then
      add(op.path, 'moves it to ' .. rel(op.to))
      add(op.to, 'moves ' .. rel(op.path) .. ' over it')
    end
  end
  return out
end

--- Asks what to do with unsaved work a patch would delete or move away: write it first (then
--- the patch acts on what the user sees, and :LlmPatchUndo can bring it back) or apply
--- nothing. `at_risk` is a list of {buf?, path, what}. True when the user chose to write and
--- every buffer was written.
function M.ask_unsaved(at_risk)
  if #at_risk == 0 then
    return true
  end
  local lines = {}
  for _, r in ipairs(at_risk) do
    lines[#lines + 1] = ('  %s has unsaved changes; the patch %s'):format(rel(r.path), r.what)
  end
  local question = ('llm-patch: a delete or move acts on the file on disk, past the buffer:\n%s\nWrite %s first, then apply?'):format(
    table.concat(lines, '\n'),
    #at_risk == 1 and 'it' or 'them'
  )
  if vim.fn.confirm(question, '&Write and apply\n&Cancel', 2, 'Question') ~= 1 then
    return false
  end
  for _, r in ipairs(at_risk) do
    local b = r.buf or existing_buf(r.path)
    if b and vim.api.nvim_buf_is_loaded(b) and vim.bo[b].modified then
      local ok = pcall(vim.api.nvim_buf_call, b, function()
        vim.cmd('silent write')
      end)
      if not ok or vim.bo[b].modified then
        return false
      end
    end
  end
  return true
end

--- The refusal when the user keeps unsaved work a file operation would destroy.
function M.unsaved_reason(at_risk)
  local names = vim.tbl_map(function(r)
    return rel(r.path)
  end, at_risk)
  return ('%s %s unsaved changes and the patch deletes or moves it on disk; nothing was applied (declined): write or discard them (:w / :e!) and apply again'):format(
    table.concat(names, ', '),
    #names == 1 and 'has' or 'have'
  )
end

--- One question for all of an edit's file operations. Neovim performs them on disk at once,
--- so the user says yes first. `vim.fn.confirm` (not vim.ui.select): the answer is needed
--- before the handler returns, and an asynchronous picker could not give it.
function M.confirm(ops)
  if #ops == 0 then
    return true
  end
  local lines = {}
  for _, op in ipairs(ops) do
    if op.kind == 'rename' then
      lines[#lines + 1] = ('  move %s → %s'):format(rel(op.path), rel(op.to))
    else
      lines[#lines + 1] = ('  %s %s'):format(op.kind, rel(op.path))
    end
  end
  local question = ('llm-patch: this patch will\n%s\nProceed?'):format(table.concat(lines, '\n'))
  return vim.fn.confirm(question, '&Yes\n&No', 2, 'Question') == 1
end

--- The change annotations an edit uses that ask for confirmation, as "label: description".
function M.to_confirm(edit)
  local annotations = edit.changeAnnotations
  if type(annotations) ~= 'table' then
    return {}
  end
  local used = {}
  local function note(id)
    if type(id) == 'string' then
      used[id] = true
    end
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    note(change.annotationId)
    for _, e in ipairs(change.edits or {}) do
      note(e.annotationId)
    end
  end
  for _, edits in pairs(edit.changes or {}) do
    for _, e in ipairs(edits) do
      note(e.annotationId)
    end
  end
  local out = {}
  for id in pairs(used) do
    local a = annotations[id]
    if type(a) == 'table' and a.needsConfirmation == true then
      local desc = type(a.description) == 'string' and a.description ~= '' and (': ' .. a.description) or ''
      out[#out + 1] = tostring(a.label) .. desc
    end
  end
  table.sort(out)
  return out
end

--- One question for the placements the server is not sure of (Neovim would apply them
--- without asking).
function M.confirm_uncertain(labels)
  if #labels == 0 then
    return true
  end
  local lines = vim.tbl_map(function(l)
    return '  ' .. l
  end, labels)
  local question = ('llm-patch: confirm before applying (not found by exact quotes, or a preview):\n%s\nApply?'):format(table.concat(lines, '\n'))
  return vim.fn.confirm(question, '&Yes\n&No', 2, 'Question') == 1
end

--- The nearest existing ancestor of a path and the directories below it that `mkdir -p`
--- would create (deepest last), so undo can remove only what the patch made.
local function missing_dirs(dir)
  local out = {}
  while dir and dir ~= '' and vim.fn.isdirectory(dir) == 0 do
    table.insert(out, 1, dir)
    local parent = vim.fs.dirname(dir)
    if parent == dir then
      break
    end
    dir = parent
  end
  return out
end

local function read_file(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local data = f:read('*a')
  f:close()
  return data
end

local function undo_seq(bufnr)
  return vim.api.nvim_buf_call(bufnr, function()
    return vim.fn.undotree().seq_cur
  end)
end

--- Closes the current undo block of a buffer, so the patch becomes its own undo step and one
--- `u` reverts exactly the patch (not the user's last unsaved typing with it).
local function undo_break(bufnr)
  vim.api.nvim_buf_call(bufnr, function()
    vim.cmd('let &l:undolevels = &l:undolevels')
  end)
end

local function text_uris(edit)
  local uris = {}
  for uri in pairs(edit.changes or {}) do
    uris[#uris + 1] = uri
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.textDocument then
      uris[#uris + 1] = change.textDocument.uri
    end
  end
  return uris
end

--- The document changes in an order that writes nothing the user did not write: a text
--- edit of a file that a later rename moves is applied after the rename, to the new path.
--- Neovim renames a loaded buffer with `:saveas!`, which writes it: an edit made before the
--- rename would be on disk at once, past the user's `:w` and past :LlmPatchUndo. The result
--- is the same text at the same place.
function M.ordered(changes)
  local out = {}
  for _, change in ipairs(changes) do
    if change.kind == 'rename' then
      local keep, moved = {}, {}
      local from = vim.fs.normalize(fname(change.oldUri))
      for _, c in ipairs(out) do
        if not c.kind and c.textDocument and vim.fs.normalize(fname(c.textDocument.uri)) == from then
          local retargeted = vim.deepcopy(c)
          retargeted.textDocument.uri = change.newUri
          moved[#moved + 1] = retargeted
        else
          keep[#keep + 1] = c
        end
      end
      out = keep
      out[#out + 1] = change
      vim.list_extend(out, moved)
    else
      out[#out + 1] = change
    end
  end
  return out
end

local function file_lines(path)
  if not vim.uv.fs_stat(path) then
    return nil
  end
  local ok, out = pcall(vim.fn.readfile, path)
  return ok and out or nil
end

--- Applies a WorkspaceEdit for the client; returns the ApplyWorkspaceEditResult.
---@param attach fun(bufnr: integer) attaches a buffer to the client
function M.apply(edit, client, attach)
  local ops = M.operations(edit)
  local reason = M.stale_reason(edit)
  if reason then
    -- said once, by the report the server answers with (its failure names this reason)
    return { applied = false, failureReason = reason }
  end
  -- unsaved work first: the question that can lose something is asked before the others
  local at_risk = M.unsaved(ops)
  if not M.ask_unsaved(at_risk) then
    return { applied = false, failureReason = M.unsaved_reason(at_risk) }
  end
  if not M.confirm_uncertain(M.to_confirm(edit)) then
    return { applied = false, failureReason = 'declined; nothing was applied' }
  end
  if not M.confirm(ops) then
    return { applied = false, failureReason = 'the file operations were declined; nothing was applied' }
  end

  local record = { buffers = {}, created = {}, deleted = {}, renamed = {}, dirs = {}, time = os.time() }
  -- file operations first: remember what undo needs before they happen
  for _, op in ipairs(ops) do
    if op.kind == 'create' then
      local existed = vim.uv.fs_stat(op.path) ~= nil
      local dirs = missing_dirs(vim.fs.dirname(op.path))
      for _, d in ipairs(dirs) do
        vim.fn.mkdir(d, 'p')
        record.dirs[#record.dirs + 1] = d
      end
      -- The file is made, empty, as CreateFile says; Neovim makes only a buffer when the
      -- server asks `ignoreIfExists` (it always does). A document for a path with no file is
      -- not that file to the server, so a block on it (a check right after) would be refused.
      -- The patch's text stays in the buffer, unsaved.
      local made_empty = false
      if not existed then
        local f = io.open(op.path, 'wb')
        if f then
          f:close()
          made_empty = true
        end
      end
      record.created[#record.created + 1] = { path = op.path, existed = existed, made_empty = made_empty }
    elseif op.kind == 'delete' then
      record.deleted[#record.deleted + 1] = { path = op.path, data = read_file(op.path) }
    elseif op.kind == 'rename' then
      -- what the moved file holds on disk: undo moves it back only while it still does
      record.renamed[#record.renamed + 1] = { from = op.path, to = op.to, data = read_file(op.path) }
    end
  end

  local before = {}
  local function remember(b)
    if not vim.api.nvim_buf_is_loaded(b) then
      pcall(vim.fn.bufload, b)
    end
    if vim.api.nvim_buf_is_loaded(b) and not before[b] then
      undo_break(b)
      before[b] = { tick = vim.api.nvim_buf_get_changedtick(b), seq = undo_seq(b) }
    end
  end
  local encoding = client.offset_encoding
  local changes = edit.documentChanges and M.ordered(edit.documentChanges) or nil
  local ok, err = pcall(function()
    if not changes then
      for uri, edits in pairs(edit.changes or {}) do
        local b = vim.uri_to_bufnr(uri)
        remember(b)
        util.apply_text_edits(edits, b, encoding)
      end
      return
    end
    for _, change in ipairs(changes) do
      if change.kind then
        util.apply_workspace_edit({ documentChanges = { change } }, encoding)
        if change.kind == 'rename' then
          -- Neovim skips a rename it cannot do with a notification only; the edits that
          -- follow are meant for the moved file and must not land anywhere else
          local from, to = fname(change.oldUri), fname(change.newUri)
          if vim.uv.fs_stat(from) or not vim.uv.fs_stat(to) then
            error(('%s could not be moved to %s; the rest of the patch was not applied'):format(rel(from), rel(to)))
          end
        end
      else
        remember(vim.uri_to_bufnr(change.textDocument.uri))
        -- index 2: no second version check; every pinned version was checked above
        util.apply_text_document_edit(change, 2, encoding)
      end
    end
  end)

  -- A created file is loaded as one empty line; text inserted into it ("x\n") leaves that
  -- line behind as a last empty line, which `:w` would write as an extra blank line.
  for _, c in ipairs(record.created) do
    local b = existing_buf(c.path)
    if b and vim.api.nvim_buf_is_loaded(b) then
      local n = vim.api.nvim_buf_line_count(b)
      if n > 1 and vim.api.nvim_buf_get_lines(b, n - 1, n, false)[1] == '' then
        vim.api.nvim_buf_set_lines(b, n - 1, n, false, {})
      end
    end
  end
  -- Tell the server about every buffer the edit loaded or created before answering: it
  -- checks the result (a created file must be on disk or open), and Neovim creates a new file
  -- only as a buffer (CreateFile with ignoreIfExists writes nothing). Paths a delete or a
  -- move took away get no buffer: a document for a file that is not there is not that file.
  local gone = {}
  for _, d in ipairs(record.deleted) do
    gone[vim.fs.normalize(d.path)] = true
  end
  for _, r in ipairs(record.renamed) do
    gone[vim.fs.normalize(r.from)] = true
  end
  local touched = {}
  for _, change in ipairs(changes or {}) do
    if not change.kind and change.textDocument then
      touched[#touched + 1] = fname(change.textDocument.uri)
    end
  end
  for uri in pairs(edit.changes or {}) do
    touched[#touched + 1] = fname(uri)
  end
  for _, c in ipairs(record.created) do
    touched[#touched + 1] = c.path
  end
  for _, r in ipairs(record.renamed) do
    touched[#touched + 1] = r.to
    gone[vim.fs.normalize(r.to)] = nil
  end
  for _, path in ipairs(touched) do
    -- a buffer the edit made, or the file on disk: never a new buffer for a path that is
    -- neither (an edit that failed halfway leaves no phantom document behind)
    local b = not gone[vim.fs.normalize(path)] and (existing_buf(path) or (vim.uv.fs_stat(path) and vim.fn.bufadd(path)))
    if b then
      if not vim.api.nvim_buf_is_loaded(b) then
        pcall(vim.fn.bufload, b)
      end
      attach(b)
    end
  end
  for _, c in ipairs(record.created) do
    -- what the patch put there: undo removes the file only while it holds exactly this
    local b = existing_buf(c.path)
    c.lines = b and vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_lines(b, 0, -1, false) or { '' }
  end
  for b, was in pairs(before) do
    if vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_changedtick(b) ~= was.tick then
      M.changed[#M.changed + 1] = b
      record.buffers[#record.buffers + 1] = { buf = b, before = was.seq, after = undo_seq(b) }
    end
  end
  for _, c in ipairs(record.created) do
    local b = existing_buf(c.path)
    if b and not before[b] then
      M.changed[#M.changed + 1] = b
    end
  end
  if ok then
    M.last_patch = record
  end
  -- Neovim sends a buffer's first change at once and debounces the rest, so the server could
  -- see half of this edit when the answer arrives and judge it "not applied": every change
  -- goes out before the answer.
  require('llm_patch.server').flush(client)
  return { applied = ok, failureReason = not ok and tostring(err) or nil }
end

--- The handler installed on the client (`client.handlers['workspace/applyEdit']`).
function M.handler(attach_fn)
  return function(_, params, ctx)
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    if not (params and params.edit and client) then
      return { applied = false, failureReason = 'no edit' }
    end
    return M.apply(params.edit, client, function(b)
      attach_fn(client, b)
    end)
  end
end

--- Why a file the patch created must stay (the user's work now), or nil: its buffer or the
--- file on disk holds other text than the patch put there. Compared by content, so a file
--- written as the patch made it still goes, and one the user typed in or rewrote stays.
function M.created_changed(c)
  local b = existing_buf(c.path)
  if b and vim.api.nvim_buf_is_loaded(b) and not vim.deep_equal(vim.api.nvim_buf_get_lines(b, 0, -1, false), c.lines) then
    return 'changed since the patch: its buffer holds your text'
  end
  local on_disk = file_lines(c.path)
  if on_disk and #on_disk == 0 then
    if c.made_empty then
      return nil -- the empty file the plugin made for it: never written since
    end
    on_disk = { '' } -- an empty file reads as no lines, its buffer as one empty line
  end
  if on_disk and not vim.deep_equal(on_disk, c.lines) then
    return 'changed since the patch: the file on disk holds your text'
  end
  return nil
end

--- :LlmPatchUndo: reverts the last patch in every file it touched. Returns a sentence and
--- whether all of it was undone.
function M.undo()
  local record = M.last_patch
  if not record then
    return 'no patch to undo', false
  end
  local done, skipped = {}, {}
  local new_files = {}
  for _, c in ipairs(record.created) do
    if not c.existed then
      new_files[vim.fs.normalize(c.path)] = true
    end
  end
  for _, entry in ipairs(record.buffers) do
    local b = entry.buf
    local name = rel(vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_name(b) or '?')
    if vim.api.nvim_buf_is_valid(b) and new_files[vim.fs.normalize(vim.api.nvim_buf_get_name(b))] then
      -- removed whole below
    elseif not vim.api.nvim_buf_is_loaded(b) then
      skipped[#skipped + 1] = name .. ' (closed)'
    elseif undo_seq(b) ~= entry.after then
      skipped[#skipped + 1] = name .. ' (changed since the patch: use u there)'
    else
      vim.api.nvim_buf_call(b, function()
        vim.cmd(('silent undo %d'):format(entry.before))
      end)
      done[#done + 1] = name
    end
  end
  for i = #record.renamed, 1, -1 do
    local r = record.renamed[i]
    local why = nil
    local b = existing_buf(r.to)
    local here = file_lines(r.to)
    if vim.uv.fs_stat(r.from) then
      why = rel(r.from) .. ' exists again'
    elseif not here then
      why = 'gone'
    elseif read_file(r.to) ~= r.data then
      why = 'changed on disk since the patch'
    elseif b and vim.api.nvim_buf_is_loaded(b) and not vim.deep_equal(vim.api.nvim_buf_get_lines(b, 0, -1, false), here) then
      why = 'its buffer holds other text than the file: write or discard it first'
    end
    if why then
      skipped[#skipped + 1] = ('%s (not moved back: %s)'):format(rel(r.to), why)
    else
      if b and vim.api.nvim_buf_is_loaded(b) then
        -- the buffer is the file's text again (the patch's edits undone above); the rename
        -- below writes it with :saveas!, which writes exactly what the file holds
        vim.bo[b].modified = false
      end
      util.rename(r.to, r.from, {})
      done[#done + 1] = rel(r.to) .. ' → ' .. rel(r.from)
    end
  end
  for _, d in ipairs(record.deleted) do
    if d.data and not vim.uv.fs_stat(d.path) then
      vim.fn.mkdir(vim.fs.dirname(d.path), 'p')
      local f = io.open(d.path, 'wb')
      if f then
        f:write(d.data)
        f:close()
        done[#done + 1] = rel(d.path) .. ' restored'
      end
    else
      skipped[#skipped + 1] = rel(d.path) .. ' (not restored)'
    end
  end
  for _, c in ipairs(record.created) do
    if not c.existed then
      local why = M.created_changed(c)
      if why then
        skipped[#skipped + 1] = ('%s (not removed: %s)'):format(rel(c.path), why)
      else
        local b = existing_buf(c.path)
        if b then
          pcall(vim.api.nvim_buf_delete, b, { force = true })
        end
        if vim.uv.fs_stat(c.path) then
          os.remove(c.path)
        end
        done[#done + 1] = rel(c.path) .. ' removed'
      end
    end
  end
  for i = #record.dirs, 1, -1 do
    vim.uv.fs_rmdir(record.dirs[i]) -- only an empty directory goes; errors mean "keep it"
  end
  M.last_patch = nil
  local msg = #done > 0 and ('undid the last patch: %s'):format(table.concat(done, ', ')) or 'nothing undone'
  if #skipped > 0 then
    msg = msg .. ('; not undone: %s'):format(table.concat(skipped, ', '))
  end
  return msg .. '.', #skipped == 0
end

return M
