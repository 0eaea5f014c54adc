-- The server's JSON report (the shape of `llm-patch apply --json`) and where a Neovim user
-- reads it: one notification, the preview buffer, the full report. The server writes the words
-- (`summary`, `level`, `problems`, `text`); the plugin only adds its prefix, the preview's key
-- hints and a title. Pure Lua on plain tables, so tests/unit.lua checks it without a server.

local M = {}

local LEVELS = { info = 'INFO', warning = 'WARN', error = 'ERROR' }

local function is_table(v)
  return type(v) == 'table'
end

local function str(v, fallback)
  if type(v) == 'string' then
    return v
  end
  return fallback
end

--- Keeps a well-formed report, or returns nil. The server is another process: a missing
--- field must weaken the wording, not raise inside a response handler.
---@param value any
---@return table|nil
function M.parse(value)
  if not is_table(value) or type(value.ok) ~= 'boolean' or not is_table(value.blocks) then
    return nil
  end
  local blocks = {}
  for i, b in ipairs(value.blocks) do
    if is_table(b) then
      local lines = b.reply_lines
      if not (is_table(lines) and type(lines[1]) == 'number' and type(lines[2]) == 'number') then
        lines = nil
      end
      local err = nil
      if is_table(b.error) then
        err = {
          code = str(b.error.code, 'ERROR'),
          message = str(b.error.message, ''),
          details = is_table(b.error.details) and b.error.details or nil,
        }
      end
      blocks[#blocks + 1] = {
        index = type(b.index) == 'number' and b.index or (i - 1),
        format = str(b.format, 'unknown'),
        path = str(b.path, nil),
        status = str(b.status, 'unknown'),
        match = str(b.match, nil),
        reply_lines = lines,
        error = err,
        -- the file already holds what the block asks for (it was applied before)
        already_applied = b.already_applied == true,
      }
    end
  end
  local files = {}
  for _, f in ipairs(is_table(value.files) and value.files or {}) do
    if is_table(f) then
      files[#files + 1] = { path = str(f.path, ''), action = str(f.action, 'modify'), diff = str(f.diff, '') }
    end
  end
  local warnings = {}
  for _, w in ipairs(is_table(value.warnings) and value.warnings or {}) do
    if is_table(w) then
      warnings[#warnings + 1] = { type = str(w.type, 'WARNING'), message = str(w.message, ''), path = str(w.path, nil) }
    end
  end
  local problems = {}
  for _, p in ipairs(is_table(value.problems) and value.problems or {}) do
    if type(p) == 'string' then
      problems[#problems + 1] = p
    end
  end
  -- A server too old to write the words still gets a sentence out of `ok`.
  local summary = str(value.summary, '')
  if summary == '' then
    summary = value.ok and 'the server reported success.' or 'the server reported a failure.'
  end
  local level = LEVELS[value.level] and value.level or (value.ok and 'info' or 'error')
  local text = str(value.text, '')
  return {
    label = str(value.label, value.ok and '✓' or '✗'),
    ok = value.ok,
    blocks = blocks,
    files = files,
    warnings = warnings,
    summary = summary,
    level = level,
    problems = problems,
    text = text ~= '' and text or (summary .. '\n'),
  }
end

--- The notification for a report: the server's sentence and its level.
---@param report table parsed report
---@return string message, integer level (vim.log.levels)
function M.notification(report)
  return 'llm-patch: ' .. report.summary, vim.log.levels[LEVELS[report.level]]
end

--- Text as buffer lines: split at every line break (a buffer line cannot hold one; a
--- near-miss diff inside a problem has several), without the empty line after a last break.
---@param text string
---@return string[]
function M.lines(text)
  local out = vim.split((text:gsub('\r\n', '\n'):gsub('\r', '\n')), '\n', { plain = true })
  if #out > 1 and out[#out] == '' then
    out[#out] = nil
  end
  return out
end

local split_lines = M.lines

--- Lines commented with `# ` (a problem may span several lines).
local function commented(text)
  return vim.tbl_map(function(l)
    return '# ' .. l
  end, split_lines(text))
end

--- The preview buffer (filetype `diff`): the summary, the keys, the problems, then each
--- file's unified diff.
---@return string[]
---@param failed table[]|nil blocks that failed: named as left out, `a` applies the rest
function M.preview_lines(report, failed)
  local out = commented(report.summary)
  if failed and #failed > 0 then
    local names = vim.tbl_map(function(b)
      return ('#%d %s'):format(b.index, b.path or '?')
    end, failed)
    out[#out + 1] = ('# left out (failed): %s'):format(table.concat(names, ', '))
    out[#out + 1] = '# a: apply the edits below (the other blocks)   q: discard'
  else
    out[#out + 1] = '# a: apply these edits   q: discard'
  end
  for _, p in ipairs(report.problems) do
    vim.list_extend(out, commented(p))
  end
  for _, f in ipairs(report.files) do
    if f.diff ~= '' then
      vim.list_extend(out, split_lines(f.diff))
    else
      out[#out + 1] = ('# %s %s'):format(f.action, f.path)
    end
  end
  return out
end

--- The whole report as Markdown lines (for :LlmPatchReport): a title, then the server's text.
---@param kind string 'apply' | 'check'
---@return string[]
function M.report_lines(report, kind)
  local out = { '# llm-patch ' .. kind .. ' report', '' }
  vim.list_extend(out, split_lines(report.text))
  return out
end

--- The reply with only the chosen blocks left: every other block's reply lines are blanked
--- (not removed, so the kept blocks keep their line numbers, and the prose that names their
--- files stays). Used for one block's own diff and for applying the accepted blocks.
---@param text string the reply the blocks' `reply_lines` count in
---@param blocks table[] parsed blocks
---@param keep table<integer, boolean> block index → kept
---@return string
function M.only_blocks(text, blocks, keep)
  local lines = vim.split(text, '\n', { plain = true })
  for _, b in ipairs(blocks) do
    if not keep[b.index] and b.reply_lines then
      for n = b.reply_lines[1], math.min(b.reply_lines[2], #lines) do
        lines[n] = ''
      end
    end
  end
  return table.concat(lines, '\n')
end

--- Quickfix items for the failed blocks: on the reply's lines when the reply is a buffer
--- (`reply.bufnr`, `reply.line_offset`), else on the file the block names (under `root`).
--- The text is the server's sentence for the failure.
---@param reply {bufnr?: integer, line_offset?: integer, root?: string}
---@return table[]
function M.quickfix_items(report, reply)
  local items, i = {}, 0
  for _, b in ipairs(report.blocks) do
    if b.status == 'failed' then
      i = i + 1
      local text = report.problems[i] or (b.error and (b.error.code .. ': ' .. b.error.message)) or 'failed'
      local item = { text = split_lines(text)[1], type = 'E' }
      if reply.bufnr and b.reply_lines then
        item.bufnr = reply.bufnr
        item.lnum = (reply.line_offset or 0) + b.reply_lines[1]
      elseif b.path then
        item.filename = reply.root and (reply.root .. '/' .. b.path) or b.path
        item.lnum = 1
      end
      items[#items + 1] = item
    end
  end
  return items
end

return M
