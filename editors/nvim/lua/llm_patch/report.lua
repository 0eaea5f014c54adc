-- The server's JSON report (the shape of `llm-patch apply --json`) turned into what a Neovim
-- user reads: one notification line, the preview buffer's diff, the full report. Pure Lua on
-- plain tables, so tests/unit.lua checks every wording without a server.

local M = {}

local function plural(n, word)
  return ('%d %s%s'):format(n, word, n == 1 and '' or 's')
end
M.plural = plural

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
  return { ok = value.ok, blocks = blocks, files = files, warnings = warnings }
end

local function placed(b)
  return b.status == 'applied' or b.status == 'validated'
end

--- `#2 src/a.py (reply lines 12-20): TEXT_NOT_FOUND - message`
function M.describe_failure(b)
  local where = b.path and (' ' .. b.path) or ''
  local lines = b.reply_lines and (' (reply lines %d-%d)'):format(b.reply_lines[1], b.reply_lines[2]) or ''
  local code = b.error and b.error.code or b.status:upper()
  local msg = (b.error and b.error.message ~= '') and (' - ' .. b.error.message) or ''
  return ('#%d%s%s: %s%s'):format(b.index, where, lines, code, msg)
end

--- One notification for a report.
---@param report table parsed report
---@param kind 'apply'|'check'
---@return string message, integer level (vim.log.levels)
function M.summary(report, kind)
  local levels = vim.log.levels
  local n_placed, n_applied, failed = 0, 0, {}
  for _, b in ipairs(report.blocks) do
    if placed(b) then
      n_placed = n_placed + 1
    end
    if b.status == 'applied' then
      n_applied = n_applied + 1
    end
    if b.status == 'failed' then
      failed[#failed + 1] = b
    end
  end
  local warn_note = #report.warnings > 0 and (' (%s)'):format(plural(#report.warnings, 'warning')) or ''

  if #report.blocks == 0 then
    local why = report.warnings[1] and report.warnings[1].message
    return 'llm-patch: no edit blocks found in the reply' .. (why and (': ' .. why) or ''), levels.WARN
  end

  if #failed > 0 then
    local first = M.describe_failure(failed[1])
    local more = #failed > 1 and (' (and %d more)'):format(#failed - 1) or ''
    local head
    if kind == 'check' then
      head = ('%d of %d blocks would fail.'):format(#failed, #report.blocks)
    elseif n_applied > 0 then
      head = ('applied %s, %d failed.'):format(plural(n_applied, 'edit'), #failed)
    else
      head = ('%d of %d blocks failed; nothing was applied.'):format(#failed, #report.blocks)
    end
    return ('llm-patch: %s %s%s%s'):format(head, first, more, warn_note), levels.ERROR
  end

  if not report.ok then
    local why = 'the edit was not applied'
    for _, w in ipairs(report.warnings) do
      if w.message ~= '' then
        why = w.message
        break
      end
    end
    return 'llm-patch: ' .. why, levels.ERROR
  end

  local files = #report.files > 0 and (' in ' .. plural(#report.files, 'file')) or ''
  local level = #report.warnings > 0 and levels.WARN or levels.INFO
  if kind == 'check' then
    return ('llm-patch: all %s can be placed%s%s.'):format(plural(n_placed, 'edit'), files, warn_note), level
  end
  return ('llm-patch: applied %s%s%s.'):format(plural(n_placed, 'edit'), files, warn_note), level
end

local function split_lines(text)
  local out = vim.split(text, '\n', { plain = true })
  if out[#out] == '' then
    out[#out] = nil
  end
  return out
end

--- The preview buffer: a header, then each file's unified diff (filetype `diff`).
---@return string[]
function M.preview_lines(report)
  local msg = M.summary(report, 'check')
  local out = {
    '# ' .. msg:gsub('^llm%-patch: ', ''),
    '# a: apply these edits   q: discard',
  }
  for _, b in ipairs(report.blocks) do
    if b.status == 'failed' then
      out[#out + 1] = '# ' .. M.describe_failure(b)
    end
  end
  for _, w in ipairs(report.warnings) do
    out[#out + 1] = ('# %s%s: %s'):format(w.type, w.path and (' ' .. w.path) or '', w.message)
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

--- The whole report as Markdown lines (for :LlmPatchReport).
---@return string[]
function M.report_lines(report, kind)
  local msg = M.summary(report, kind)
  local out = { '# llm-patch ' .. kind .. ' report', '', (msg:gsub('^llm%-patch: ', '')), '' }
  if #report.blocks > 0 then
    out[#out + 1] = '## Blocks'
    out[#out + 1] = ''
    for _, b in ipairs(report.blocks) do
      local mark = placed(b) and '✓' or (b.status == 'failed' and '✗' or '-')
      local lines = b.reply_lines and (' reply lines %d-%d'):format(b.reply_lines[1], b.reply_lines[2]) or ''
      out[#out + 1] = ('- %s #%d %s %s (%s%s)%s'):format(
        mark,
        b.index,
        b.status,
        b.path or '?',
        b.format,
        b.match and (', ' .. b.match) or '',
        lines
      )
      if b.error then
        out[#out + 1] = ('  %s: %s'):format(b.error.code, b.error.message)
      end
    end
    out[#out + 1] = ''
  end
  if #report.warnings > 0 then
    out[#out + 1] = '## Warnings'
    out[#out + 1] = ''
    for _, w in ipairs(report.warnings) do
      out[#out + 1] = ('- %s%s: %s'):format(w.type, w.path and (' ' .. w.path) or '', w.message)
    end
    out[#out + 1] = ''
  end
  for _, f in ipairs(report.files) do
    out[#out + 1] = ('## %s (%s)'):format(f.path, f.action)
    out[#out + 1] = ''
    if f.diff ~= '' then
      out[#out + 1] = '```diff'
      vim.list_extend(out, split_lines(f.diff))
      out[#out + 1] = '```'
      out[#out + 1] = ''
    end
  end
  return out
end

return M
