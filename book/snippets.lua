-- snippets.lua — pulls listings out of the real source.
--
-- A code block ```{.c snippet=NAME}``` (its body left empty) becomes the
-- body of region NAME (scripts/book/snippets.sh show NAME), headed by the file
-- it comes from and its line numbers. A name with no region stops the
-- build, naming the chapter and the snippet: the book never shows code
-- that is not the tested code.
--
-- scripts/book/book.sh puts `<!-- source: FILE -->` before each chapter so the
-- filter can say which chapter asked. The same markers let it demote the
-- headings of solutions under the book's one "Answer key" appendix (the
-- web edition gives each solution its own page, undemoted).

local source = "?"
local in_answer_key = false
local is_latex = FORMAT:match("latex") ~= nil
-- In HTML, a listing's file name links to the file in the repository tree:
-- BOOK_SOURCE_ROOT is the path from the page to the repository's root
-- (scripts/book/book.sh and scripts/web/web.sh set it); unset, no link.
local source_root = os.getenv("BOOK_SOURCE_ROOT")

-- Text for a LaTeX argument: the characters TeX would read as commands.
local function tex(s)
  return (s:gsub("[\\_#%%&${}~^]", function(c) return "\\" .. c .. "{}" end))
end

local function chapter_label(path)
  local num = path:match("chapters/(%d+)%-")
  if num then return "chapter " .. num .. " (" .. path .. ")" end
  num = path:match("solutions/(%d+)%-")
  if num then return "solution " .. num .. " (" .. path .. ")" end
  return path
end

-- A wide listing gets a smaller font: the text width holds about 85
-- columns at \small and 94 at \footnotesize (11 pt body, A4, 2.6 cm
-- margins). Smaller than that is hard to read, so a listing wider than 94
-- columns has its long lines wrapped at a space, outside string literals,
-- the rest indented one step deeper than the line it continues (a `//`
-- comment goes on with `//`; a preprocessor line is never wrapped). The
-- HTML edition wraps nothing: its listings scroll inside their box.
-- Listings of at most this many lines never break across pages.
local keep_together = 25
local sizes = {{85, "\\small"}, {94, "\\footnotesize"}}
local wrap_width = 94

local function chars(s)
  local t = {}
  for _, c in utf8.codes(s) do t[#t + 1] = utf8.char(c) end
  return t
end

local function wrap_line(line, width, out)
  local c = chars(line)
  if #c <= width or line:match("^%s*#") then table.insert(out, line); return end
  local indent = line:match("^%s*") .. "    "
  local lead = #line:match("^%s*")
  while #c > width do
    local quote, comment, best, best_comment = false, false, nil, false
    for i = 1, math.min(#c, width + 1) do
      local ch = c[i]
      if not comment and ch == '"' and c[i - 1] ~= "\\" then quote = not quote end
      if not quote and ch == "/" and c[i + 1] == "/" then comment = true end
      if ch == " " and not quote and i > lead + 1 and c[i - 1] ~= " " then best, best_comment = i, comment end
    end
    if not best then break end
    table.insert(out, table.concat(c, "", 1, best - 1))
    local rest = table.concat(c, "", best + 1):gsub("^%s+", "")
    c = chars(indent .. (best_comment and "// " or "") .. rest)
    lead = #indent
  end
  table.insert(out, table.concat(c))
end

local function wrapped(text, width)
  local out = {}
  for line in (text .. "\n"):gmatch("(.-)\n") do wrap_line(line, width, out) end
  return table.concat(out, "\n")
end

-- opts (optional): font_text, the whole text whose widest line sets the
-- size (the parts of one output share one size); keep, the most lines
-- kept on one page; small, true to set it in \footnotesize whatever its
-- width (so that two tables of a long output share a page); headless,
-- true for a part with no head line above it.
local function fitted(blocks, text, what, opts)
  opts = opts or {}
  if not is_latex then return blocks end
  local function width_of(t)
    local w = 0
    for line in (t .. "\n"):gmatch("(.-)\n") do
      local n = utf8.len(line) or #line
      if n > w then w = n end
    end
    return w
  end
  local width = width_of(text)
  if width > wrap_width then
    text = wrapped(text, wrap_width)
    for _, b in ipairs(blocks) do
      if b.t == "CodeBlock" then b.text = wrapped(b.text, wrap_width) end
    end
    width = width_of(text)
    if width > wrap_width then
      io.stderr:write("book: " .. chapter_label(source) .. ": " .. what .. " has a line of " .. width ..
                      " columns that cannot be wrapped; the page holds " .. wrap_width .. " in \\footnotesize\n")
    end
  end
  if opts.font_text then width = math.max(width, math.min(width_of(opts.font_text), wrap_width)) end
  local size = (width <= sizes[1][1] and not opts.small) and sizes[1][2] or sizes[2][2]
  -- A short listing is kept on one page (\\needlines, book/header.tex):
  -- its lines, the head line and a little air, in body lines. A long one
  -- at least starts with a few lines under its head.
  -- A line of \small listing is 0.91 of a body line, of \footnotesize 0.83.
  local lines = select(2, text:gsub("\n", "")) + 1
  local height = math.ceil(lines * (size == "\\small" and 0.91 or 0.83))
  local need = lines <= (opts.keep or keep_together) and height + (opts.headless and 1 or 3) or 8
  table.insert(blocks, 1, pandoc.RawBlock("latex", "\\needlines{" .. need .. "}"))
  if size == "\\small" then return blocks end
  table.insert(blocks, 1, pandoc.RawBlock("latex", "\\renewcommand{\\listingsize}{" .. size .. "}"))
  table.insert(blocks, pandoc.RawBlock("latex", "\\renewcommand{\\listingsize}{\\small}"))
  return blocks
end

local function pull(block)
  local name = block.attributes["snippet"]
  if not name then return nil end
  local ok, out = pcall(pandoc.pipe, "scripts/book/snippets.sh", {"show", name}, "")
  if not ok then
    error("\n" .. chapter_label(source) .. ": snippet " .. name ..
          " not found (no '@snippet " .. name .. "' region in the source)\n", 0)
  end
  local file, first, last, body = out:match("^(%S+) (%d+) (%d+)\n(.*)$")
  if not file then error("snippets.sh show " .. name .. ": unexpected output", 0) end
  body = body:gsub("\n+$", "")
  local classes = block.classes
  if #classes == 0 then classes = {"c"} end
  local code = pandoc.CodeBlock(body, pandoc.Attr("", classes, {}))
  local range = "lines " .. first .. "--" .. last
  if is_latex then
    return fitted({pandoc.RawBlock("latex", "\\snippetfile{\\texttt{" .. tex(file) .. "}}{" .. range .. "}"), code}, body, "snippet " .. name)
  end
  local name_el = pandoc.Code(file)
  if source_root then
    name_el = pandoc.Link({name_el}, source_root .. "/" .. file, "", pandoc.Attr("", {"source"}, {}))
  end
  local head = pandoc.Para({name_el, pandoc.Str(", lines " .. first .. "–" .. last)})
  return {pandoc.Div({head, code}, pandoc.Attr("", {"listing"}, {}))}
end

-- A block ```{.text command="normlab ARGS"}``` shows the output of that
-- run of the course's own program, made while the book is built.
local function run(block)
  local cmd = block.attributes["command"]
  if not cmd then return nil end
  local args = {}
  for w in cmd:gmatch("%S+") do table.insert(args, w) end
  if args[1] ~= "normlab" then
    error("\n" .. chapter_label(source) .. ": command=\"" .. cmd .. "\": only normlab commands can run in the book\n", 0)
  end
  table.remove(args, 1)
  local prog = os.getenv("NORMLAB") or "build/normlab"
  local ok, out = pcall(pandoc.pipe, prog, args, "")
  if not ok then
    -- In a student's handout (NORMLAB_BOOK_PARTIAL=1, set by its
    -- mk/zz-handout.mk) a run of exercises not done yet may fail: the
    -- book still builds, showing what the run printed and saying so.
    if os.getenv("NORMLAB_BOOK_PARTIAL") == "1" then
      local printed = type(out) == "table" and out.output or ""
      local code = type(out) == "table" and out.error_code or "?"
      io.stderr:write(chapter_label(source) .. ": `" .. cmd .. "` exits " .. tostring(code) ..
                      " on your code (an exercise it runs is not done yet); the book shows its output as it is\n")
      out = printed .. "\n[this run exits " .. tostring(code) .. " on your code: an exercise it runs is not done" ..
            " yet (make handout-status lists them); its numbers here are your code's]\n"
    else
      error("\n" .. chapter_label(source) .. ": `" .. cmd .. "` failed: " .. tostring(out) .. "\n", 0)
    end
  end
  out = out:gsub("\n+$", "")
  local code = pandoc.CodeBlock(out, pandoc.Attr("", {"text"}, {}))
  if is_latex then
    -- Output in blocks (one table per shape, separated by blank lines) is
    -- set block by block, so that a page breaks between tables, never
    -- inside one that fits on a page.
    local head = pandoc.RawBlock("latex", "\\snippetfile{\\texttt{" .. tex("$ " .. cmd):gsub(",", ",\\allowbreak{}") .. "}}{output of the run}")
    -- A table of up to 40 lines is kept whole; where there are several
    -- tables of 20 lines or more, they are set in \footnotesize, so that
    -- two of them fit on one page.
    local parts, big = {}, 0
    for part in (out .. "\n\n"):gmatch("(.-)\n\n+") do
      if part:match("%S") then
        table.insert(parts, part)
        if select(2, part:gsub("\n", "")) >= 20 then big = big + 1 end
      end
    end
    local result = {}
    local first = true
    for _, part in ipairs(parts) do
      local blocks = {pandoc.CodeBlock(part, pandoc.Attr("", {"text"}, {}))}
      if first then table.insert(blocks, 1, head) end
      blocks = fitted(blocks, part, "the output of " .. cmd, {font_text = out, keep = 40, small = big >= 2, headless = not first})
      if not first then table.insert(blocks, 1, pandoc.RawBlock("latex", "\\vspace{0.6\\baselineskip}")) end
      for _, b in ipairs(blocks) do table.insert(result, b) end
      first = false
    end
    return result
  end
  return {pandoc.Div({pandoc.Para({pandoc.Code("$ " .. cmd)}), code}, pandoc.Attr("", {"listing"}, {}))}
end

-- A code block written in the chapter itself (a shell session, a
-- program's output) is sized and kept together like a listing.
local function plain(block)
  if not is_latex then return nil end
  return fitted({block}, block.text, "a code block")
end

local function expand(block)
  return pull(block) or run(block) or plain(block)
end

local function source_marker(block)
  if block.t == "RawBlock" and block.format == "html" then
    return block.text:match("^<!%-%- source: (%S+) %-%->$"), block.text:match("^<!%-%- answer%-key %-%->$")
  end
end

function Pandoc(doc)
  local out = {}
  for _, block in ipairs(doc.blocks) do
    local src, key = source_marker(block)
    if src then
      source = src
    elseif key then
      in_answer_key = true   -- book/parts.lua, run before, starts the appendices there
    else
      if block.t == "Header" and in_answer_key and source:match("^solutions/") then
        block.level = block.level + 1
      end
      local walked = pandoc.walk_block(block, {CodeBlock = expand})
      if block.t == "CodeBlock" then
        local r = expand(block)
        if r then
          -- A listing right under a heading: the heading goes with it.
          local prev = out[#out]
          if prev and prev.t == "Header" then
            for k, b in ipairs(r) do
              local need = b.t == "RawBlock" and b.text:match("^\\needlines{(%d+)}$")
              if need then
                table.remove(r, k)
                table.insert(out, #out, pandoc.RawBlock("latex", "\\needlines{" .. (tonumber(need) + 3) .. "}"))
                break
              end
            end
          end
          for _, b in ipairs(r) do table.insert(out, b) end
          goto continue
        end
      end
      table.insert(out, walked)
    end
    ::continue::
  end
  return pandoc.Pandoc(out, doc.meta)
end
