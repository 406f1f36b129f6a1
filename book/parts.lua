-- parts.lua — the parts of the book around its chapters.
--
-- scripts/book/assemble.sh puts `<!-- source: FILE -->` before each
-- document; its folder says what the document is:
--   chapters/00-*.md   the preface: unnumbered, before chapter 1
--   chapters/NN-*.md   a chapter, numbered
--   appendices/X-*.md  an appendix: after LaTeX's \appendix, lettered; in
--                      HTML unnumbered, its title led by "Appendix X:"
--   notebook/*.md      the lab notebook: a part of its own, "Lab notebook
--                      (optional)", unnumbered (each page's title names
--                      its chapter)
-- The answer key (`<!-- answer-key -->`, solutions/*.md) comes after
-- \appendix too. The web edition runs this filter on one document a
-- page: the notebook's part heading is then left to the navigation.
local is_latex = FORMAT:match("latex") ~= nil

local function source_marker(block)
  if block.t == "RawBlock" and block.format == "html" then
    return block.text:match("^<!%-%- source: (%S+) %-%->$"), block.text:match("^<!%-%- answer%-key %-%->$") ~= nil
  end
end

local function kind_of(path)
  if path:match("^chapters/00%-") then return "preface" end
  if path:match("^chapters/%d%d%-") then return "chapter" end
  if path:match("^appendices/") then return "appendix" end
  if path:match("^notebook/") then return "notebook" end
  return "other"
end

local function unnumbered(header)
  if not header.classes:includes("unnumbered") then header.classes:insert("unnumbered") end
  return header
end

-- appendices/A-census.md -> "A"; otherwise the appendix's place in order.
local function letter_of(path, count)
  return path:match("^appendices/(%u)%-") or string.char(64 + count)
end

function Pandoc(doc)
  local out = {}
  local kind, letter = "other", nil
  local seen_chapter, appendix_started, notebook_started = false, false, false
  local appendices = 0
  local function start_appendix()
    if appendix_started then return end
    appendix_started = true
    if is_latex then table.insert(out, pandoc.RawBlock("latex", "\\appendix")) end
  end
  for _, block in ipairs(doc.blocks) do
    local src, key = source_marker(block)
    if src then
      kind = kind_of(src)
      if kind == "chapter" then seen_chapter = true end
      if kind == "appendix" then
        start_appendix()
        appendices = appendices + 1
        letter = letter_of(src, appendices)
      end
      if kind == "notebook" and seen_chapter and not notebook_started then
        notebook_started = true
        start_appendix()
        local title = "Lab notebook (optional)"
        if is_latex then
          table.insert(out, pandoc.RawBlock("latex",
            "\\cleardoublepage\\phantomsection\\addcontentsline{toc}{part}{" .. title .. "}\\part*{" .. title .. "}"))
        else
          table.insert(out, pandoc.Header(1, {pandoc.Str(title)}, pandoc.Attr("lab-notebook", {"unnumbered", "part"})))
        end
      end
      table.insert(out, block)
    elseif key then
      kind = "other"
      start_appendix()
      table.insert(out, block)
    elseif block.t == "Header" and (kind == "preface" or kind == "notebook") then
      table.insert(out, unnumbered(block))
      -- \chapter* leaves the running head as it was (the contents' name)
      if is_latex and block.level == 1 then
        local title = pandoc.write(pandoc.Pandoc({pandoc.Plain(block.content)}), "latex")
        table.insert(out, pandoc.RawBlock("latex", "\\markboth{" .. title .. "}{" .. title .. "}"))
      end
    elseif block.t == "Header" and kind == "appendix" and not is_latex then
      if block.level == 1 then
        for i, el in ipairs({pandoc.Str("Appendix"), pandoc.Space(), pandoc.Str(letter .. ":"), pandoc.Space()}) do
          block.content:insert(i, el)
        end
      end
      table.insert(out, unnumbered(block))
    else
      table.insert(out, block)
    end
  end
  return pandoc.Pandoc(out, doc.meta)
end
