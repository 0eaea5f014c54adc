-- Scratch splits: the preview of a reply's diff (`a` applies, `q` discards), the last report,
-- and the per-block review (each block's own diff, accepted or rejected with a key, then the
-- accepted ones applied as one patch).
--
-- A split is opened only once its lines are ready (an error leaves no empty window behind),
-- and closing it returns to the window the command came from, so the next command runs on
-- the buffer it was meant for.

local report_mod = require('llm_patch.report')

local M = {}

local function llm()
  return require('llm_patch')
end

local function event(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

--- Opens a read-only scratch split holding `lines`; returns its buffer and a close function
--- that goes back to the window that was current.
function M.scratch(lines, filetype, name)
  local origin = vim.api.nvim_get_current_win()
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  if name then
    pcall(vim.api.nvim_buf_set_name, buf, name)
  end
  vim.cmd('botright split')
  vim.api.nvim_win_set_buf(0, buf)
  vim.bo[buf].filetype = filetype
  local function close()
    if vim.api.nvim_buf_is_valid(buf) then
      vim.api.nvim_buf_delete(buf, { force = true })
    end
    if vim.api.nvim_win_is_valid(origin) then
      vim.api.nvim_set_current_win(origin)
    end
  end
  vim.keymap.set('n', 'q', close, { buffer = buf, nowait = true, desc = 'llm-patch: close' })
  return buf, close
end

--- :LlmPatchPreview (and code actions with the `preview` option): check, show the diff;
--- `a` applies, `q` discards.
function M.preview(source, bufnr, opts, reply)
  -- checked as a partial apply: with a failing block the diff still shows what the blocks
  -- that place would change, and `a` applies exactly that (the failed ones named, left out)
  local shown = vim.tbl_extend('force', opts or {}, { partial = true })
  return llm().run('check', source, shown, bufnr, function(err, result)
    local report = not err and report_mod.parse(result) or nil
    if not report or #report.blocks == 0 then
      -- no blocks, nothing to show: the notification says why, and no split opens
      llm().finish('check', err, result, reply)
      return
    end
    llm().last = { kind = 'check', report = report, changed = {}, reply = reply }
    local failed = vim.tbl_filter(function(b)
      return b.status == 'failed'
    end, report.blocks)
    local buf, close = M.scratch(report_mod.preview_lines(report, failed), 'diff', 'llm-patch://preview')
    vim.keymap.set('n', 'q', function()
      close()
      llm().notify('llm-patch: preview discarded, nothing applied')
      event('LlmPatchDone', { kind = 'discard' })
    end, { buffer = buf, nowait = true, desc = 'llm-patch: discard' })
    vim.keymap.set('n', 'a', function()
      close()
      llm().run('apply', source, #failed > 0 and shown or opts, bufnr, nil, reply)
    end, { buffer = buf, nowait = true, desc = 'llm-patch: apply' })
    event('LlmPatchPreview', { buf = buf, report = report })
  end)
end

-- ---- the review -------------------------------------------------------------------------------

--- The text of a reply source (a register's text, or a buffer's lines / selected lines).
local function source_text(source)
  if source.text then
    return source.text
  end
  local b = vim.uri_to_bufnr(source.uri)
  local lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
  if source.range then
    -- the lines above the range kept as empty lines, so reply lines count from line 1
    local first = source.range.start.line
    lines = vim.list_slice(lines, first + 1, source.range['end'].line + 1)
    return ('\n'):rep(first) .. table.concat(lines, '\n') .. '\n'
  end
  return table.concat(lines, '\n') .. '\n'
end

local function header(block, accepted)
  local mark = accepted and '[x]' or '[ ]'
  local where = block.path or '?'
  local how
  if block.status == 'failed' then
    how = '✗ ' .. (block.error and block.error.code or 'failed')
  elseif block.already_applied then
    how = 'already applied'
  else
    how = block.match or block.status
  end
  local lines = block.reply_lines and (' (reply lines %d-%d)'):format(block.reply_lines[1], block.reply_lines[2]) or ''
  return ('%s #%d %s — %s%s'):format(mark, block.index, where, how, lines)
end

--- The review buffer's lines and, for each line, the block it belongs to.
function M.review_lines(report, diffs, accepted)
  local out = {
    '# ' .. report_mod.lines(report.summary)[1],
    '# x: accept/reject the block under the cursor   a: apply the accepted blocks   q: close',
  }
  local owner = {}
  for _, b in ipairs(report.blocks) do
    out[#out + 1] = header(b, accepted[b.index])
    owner[#out] = b.index
    local body = diffs[b.index]
    if b.status == 'failed' then
      body = b.error and (b.error.message ~= '' and b.error.message or b.error.code) or 'failed'
      body = table.concat(vim.tbl_map(function(l)
        return '  ' .. l
      end, report_mod.lines(body)), '\n')
    end
    for _, l in ipairs(report_mod.lines(body or '')) do
      if l ~= '' then
        out[#out + 1] = l
        owner[#out] = b.index
      end
    end
  end
  return out, owner
end

--- :LlmPatchReview: every block with its own diff; `x` accepts or rejects the block under the
--- cursor (placed blocks start accepted, failed ones rejected), `a` applies the accepted
--- blocks as one patch, `q` closes.
function M.review(source, bufnr, reply)
  local text = source_text(source)
  local base = { text = text, target = source.target }
  llm().run('check', base, { partial = true }, bufnr, function(err, result)
    local report = not err and report_mod.parse(result) or nil
    if not report or #report.blocks == 0 then
      llm().finish('check', err, result, reply)
      return
    end
    -- each block's own diff: the reply with every other block blanked, checked alone
    local diffs, waiting = {}, #report.blocks
    local function render()
      local accepted = {}
      for _, b in ipairs(report.blocks) do
        accepted[b.index] = b.status ~= 'failed'
      end
      local lines, owner = M.review_lines(report, diffs, accepted)
      local buf, close = M.scratch(lines, 'diff', 'llm-patch://review')
      local function redraw()
        lines, owner = M.review_lines(report, diffs, accepted)
        vim.bo[buf].modifiable = true
        vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
        vim.bo[buf].modifiable = false
      end
      vim.keymap.set('n', 'x', function()
        local index = owner[vim.api.nvim_win_get_cursor(0)[1]]
        local block = index ~= nil and vim.iter(report.blocks):find(function(b)
          return b.index == index
        end)
        if block and block.status == 'failed' then
          -- nothing of it can land: accepting it would only make the whole apply fail
          llm().notify(('llm-patch: block #%d failed (%s); it cannot be accepted'):format(index, block.error and block.error.code or 'failed'), vim.log.levels.WARN)
        elseif index ~= nil then
          accepted[index] = not accepted[index]
          redraw()
        end
      end, { buffer = buf, nowait = true, desc = 'llm-patch: accept or reject this block' })
      vim.keymap.set('n', 'a', function()
        local keep, n = {}, 0
        for index, yes in pairs(accepted) do
          if yes then
            keep[index] = true
            n = n + 1
          end
        end
        if n == 0 then
          llm().notify('llm-patch: no block accepted; nothing to apply (x accepts, q closes)', vim.log.levels.WARN)
          return
        end
        close()
        local only = { text = report_mod.only_blocks(text, report.blocks, keep), target = source.target }
        llm().run('apply', only, nil, bufnr, nil, reply)
      end, { buffer = buf, nowait = true, desc = 'llm-patch: apply the accepted blocks' })
      vim.keymap.set('n', 'q', function()
        close()
        llm().notify('llm-patch: review closed, nothing applied')
        event('LlmPatchDone', { kind = 'discard' })
      end, { buffer = buf, nowait = true, desc = 'llm-patch: close' })
      event('LlmPatchReview', { buf = buf, report = report })
    end
    for _, b in ipairs(report.blocks) do
      if b.status == 'failed' then
        waiting = waiting - 1
      else
        local alone = { text = report_mod.only_blocks(text, report.blocks, { [b.index] = true }), target = source.target }
        llm().run('check', alone, nil, bufnr, function(e, r)
          local one = not e and report_mod.parse(r) or nil
          local parts = {}
          for _, f in ipairs(one and one.files or {}) do
            parts[#parts + 1] = f.diff ~= '' and f.diff or ('# %s %s\n'):format(f.action, f.path)
          end
          diffs[b.index] = table.concat(parts, '')
          waiting = waiting - 1
          if waiting == 0 then
            render()
          end
        end)
      end
    end
    if waiting == 0 then
      render()
    end
  end)
end

return M
