-- A real editor as the LSP client: Neovim's built-in client (0.7 and later:
-- vim.lsp.start where it exists, else vim.lsp.start_client), headless.
-- tests/cli/lsp.rs runs it as
--
--   PLUGINS_BIN=... PLUGINS_LSP_FILE=... PLUGINS_LSP_FIXED=... \
--     nvim --headless -n -u NONE -i NONE -c 'luafile tests/lsp/client.lua'
--
-- It opens PLUGINS_LSP_FILE (a broken manifest), starts `plugins lsp`, waits
-- for its diagnostics, applies the code action offered at one of them,
-- waits for that diagnostic to go, asks for hover and completion, replaces the buffer with the lines of PLUGINS_LSP_FIXED
-- (as if typed: no save), waits for the diagnostics to clear, stops the server
-- (shutdown, exit) and prints one JSON document to stdout: what the server
-- published, what Neovim stored (vim.diagnostic, byte columns), the code
-- actions and what applying the first did, and the server's exit code.

local function fail(message)
  io.stderr:write('client.lua: ' .. message .. '\n')
  vim.cmd('cquit 2')
end

local function main()
  local bin = os.getenv('PLUGINS_BIN')
  local file = os.getenv('PLUGINS_LSP_FILE')
  local fixed = os.getenv('PLUGINS_LSP_FIXED')
  if not (bin and file and fixed) then
    return fail('set PLUGINS_BIN, PLUGINS_LSP_FILE and PLUGINS_LSP_FIXED')
  end

  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()

  local published = {}
  local exit_code = nil
  local config = {
    name = 'plugins',
    cmd = { bin, 'lsp' },
    root_dir = vim.fn.fnamemodify(file, ':p:h'),
    handlers = {
      ['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
        table.insert(published, result)
        vim.lsp.handlers['textDocument/publishDiagnostics'](err, result, ctx, config)
      end,
    },
    on_exit = function(code, _signal, _id)
      exit_code = code
    end,
  }
  -- vim.lsp.start (0.8+) attaches the current buffer; 0.7 has only start_client.
  local client_id
  if vim.lsp.start then
    client_id = vim.lsp.start(config)
  else
    client_id = vim.lsp.start_client(config)
    if client_id then
      vim.lsp.buf_attach_client(bufnr, client_id)
    end
  end
  if not client_id then
    return fail('the LSP client did not start')
  end

  local function last()
    return published[#published]
  end

  -- 1. The broken manifest as opened.
  local ok = vim.wait(20000, function()
    return last() ~= nil and #last().diagnostics > 0
  end, 20)
  if not ok then
    return fail('no diagnostics for the broken manifest')
  end
  local broken = last().diagnostics
  local stored = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(stored, {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      severity = d.severity, code = d.code,
    })
  end

  -- 2. The code actions at the capability diagnostic; the first applied as
  -- the editor applies a workspace edit, unsaved.
  local target = nil
  for _, d in ipairs(broken) do
    if d.code == 'plugins::aoe::unknown_capability' then
      target = d
    end
  end
  if not target then
    return fail('no unknown_capability diagnostic')
  end
  local answers = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = target.range,
    context = { diagnostics = { target } },
  }, 20000)
  local actions = {}
  for _, answer in pairs(answers or {}) do
    for _, action in ipairs(answer.result or {}) do
      table.insert(actions, action)
    end
  end
  if #actions == 0 then
    return fail('no code actions')
  end
  local titles = {}
  for _, action in ipairs(actions) do
    table.insert(titles, action.title)
  end
  vim.lsp.util.apply_workspace_edit(actions[1].edit, 'utf-16')
  local fixed_line = vim.api.nvim_buf_get_lines(bufnr, target.range.start.line, target.range.start.line + 1, false)[1]
  ok = vim.wait(20000, function()
    for _, d in ipairs(last().diagnostics) do
      if d.code == 'plugins::aoe::unknown_capability' and d.message:find('runtime.workr', 1, true) then
        return false
      end
    end
    return true
  end, 20)
  if not ok then
    return fail('the code action did not fix the diagnostic: ' .. vim.fn.json_encode(last().diagnostics))
  end
  local after_action = {}
  for _, d in ipairs(last().diagnostics) do
    table.insert(after_action, d.code)
  end

  -- 3. Hover over the diagnostic, and key completion on a new line under
  -- [runtime] (typed at the end of the buffer).
  local position = { line = target.range.start.line, character = target.range.start.character }
  local hovered = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = position,
  }, 20000)
  local hover = nil
  for _, answer in pairs(hovered or {}) do
    if answer.result then
      hover = vim.split(answer.result.contents.value, '\n')[1]
    end
  end
  local count = vim.api.nvim_buf_line_count(bufnr)
  vim.api.nvim_buf_set_lines(bufnr, count, count, false, { 'sy' })
  local completed = vim.lsp.buf_request_sync(bufnr, 'textDocument/completion', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = count, character = 2 },
  }, 20000)
  local labels = {}
  for _, answer in pairs(completed or {}) do
    for _, item in ipairs((answer.result or {}).items or {}) do
      table.insert(labels, item.label)
    end
  end

  -- 4. Typed fix: replace every line, unsaved.
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, vim.fn.readfile(fixed))
  ok = vim.wait(20000, function()
    return #last().diagnostics == 0
  end, 20)
  if not ok then
    return fail('the diagnostics did not clear: ' .. vim.fn.json_encode(last().diagnostics))
  end

  -- 5. shutdown, exit.
  vim.lsp.stop_client(client_id)
  ok = vim.wait(20000, function()
    return exit_code ~= nil
  end, 20)
  if not ok then
    return fail('the server did not exit')
  end

  io.stdout:write(vim.fn.json_encode({
    published = broken,
    stored = stored,
    actions = titles,
    fixed_line = fixed_line,
    after_action = after_action,
    hover = hover,
    completion = labels,
    cleared = #last().diagnostics == 0,
    modified = vim.bo[bufnr].modified,
    exit_code = exit_code,
  }) .. '\n')
  vim.cmd('qall!')
end

local ok, err = pcall(main)
if not ok then
  fail(tostring(err))
end
