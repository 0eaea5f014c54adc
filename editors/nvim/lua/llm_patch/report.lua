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

local function split_lines(text)
  local out = vim.split(text, '\n', { plain = true })
  if out[#out] == '' then
    out[#out] = nil
  end
  return out
end

--- The preview buffer (filetype `diff`): the summary, the keys, the problems, then each
--- file's unified diff.
---@return string[]
function M.preview_lines(report)
  local out = { '# ' .. report.summary, '# a: apply these edits   q: discard' }
  for _, p in ipairs(report.problems) do
    out[#out + 1] = '# ' .. p
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
  vim.list_extend(out, vim.split(report.text:gsub('\n$', ''), '\n', { plain = true }))
  return out
end

return M
