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

-- Listings are not wrapped, so a wide one gets a smaller font: the text
-- width holds about 85 columns at \small, 94 at \footnotesize, 106 at
-- \scriptsize and 121 at \tiny (11 pt body, A4, 2.6 cm margins).
-- Listings of at most this many lines never break across pages.
local keep_together = 25
local sizes = {{85, "\\small"}, {94, "\\footnotesize"}, {106, "\\scriptsize"}, {121, "\\tiny"}}
local function fitted(blocks, text, what)
  if not is_latex then return blocks end
  local width = 0
  for line in (text .. "\n"):gmatch("(.-)\n") do
    local n = utf8.len(line) or #line
    if n > width then width = n end
  end
  local size = nil
  for _, s in ipairs(sizes) do
    if width <= s[1] then size = s[2]; break end
  end
  if not size then
    io.stderr:write("book: " .. chapter_label(source) .. ": " .. what .. " is " .. width ..
                    " columns wide; the page holds 121 even in \\tiny\n")
    size = "\\tiny"
  end
  -- A short listing is kept on one page (\\needlines, book/header.tex):
  -- its lines, the head line and a little air, in body lines. A long one
  -- at least starts with a few lines under its head.
  local lines = select(2, text:gsub("\n", "")) + 1
  local need = lines <= keep_together and lines + 3 or 8
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
    error("\n" .. chapter_label(source) .. ": `" .. cmd .. "` failed: " .. tostring(out) .. "\n", 0)
  end
  out = out:gsub("\n+$", "")
  local code = pandoc.CodeBlock(out, pandoc.Attr("", {"text"}, {}))
  if is_latex then
    return fitted({pandoc.RawBlock("latex", "\\snippetfile{\\texttt{" .. tex("$ " .. cmd):gsub(",", ",\\allowbreak{}") .. "}}{output of the run}"), code}, out, "the output of " .. cmd)
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
      in_answer_key = true
      if is_latex then table.insert(out, pandoc.RawBlock("latex", "\\appendix")) end
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
