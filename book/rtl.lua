-- rtl.lua — text in Persian, written [...]{.fa} (the preface cites an
-- article by its Persian title). HTML gets lang and dir, and the browser
-- does the rest; LaTeX sets it right to left (XeTeX's \beginR, with
-- \TeXXeTstate on) in a font that has the Arabic script and shapes it
-- (\persianfont, book/header.tex).
function Span(el)
  if not el.classes:includes("fa") then return nil end
  if FORMAT:match("latex") then
    local out = {pandoc.RawInline("latex", "{\\persianfont\\beginR ")}
    for _, x in ipairs(el.content) do table.insert(out, x) end
    table.insert(out, pandoc.RawInline("latex", "\\endR}"))
    return out
  end
  el.attributes.lang = "fa"
  el.attributes.dir = "rtl"
  return el
end
