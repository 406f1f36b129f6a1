-- boxes.lua — the exercises box that closes each chapter: a Div with class
-- "exercises" (written by scripts/book/book.sh from exercise.conf and the
-- exercise's README) becomes a framed box in LaTeX, a styled div in HTML.
--
-- A Div with class "museum" (written in the chapters as ::: {.museum})
-- is a sidebar from the museum of norm bugs (tests/check_museum.c): a
-- shaded box with its own heading in LaTeX, a styled aside in HTML.
--
-- book/STYLE.md's two boxes: "outcomes" under a chapter's title (what the
-- reader will be able to do) and "aside" (optional material, its first
-- line a bold title). The LaTeX environments are in book/header.tex, the
-- HTML styles in book/book.css and book/web/style.css.
local envs = {exercises = "exercisesbox", museum = "museumbox", outcomes = "outcomesbox", aside = "asidebox"}

function Div(div)
  local env
  for class, name in pairs(envs) do
    if div.classes:includes(class) then env = name end
  end
  if not env then return nil end
  if div.classes:includes("aside") then div.attributes.role = "note" end
  if FORMAT:match("latex") then
    local out = {pandoc.RawBlock("latex", "\\begin{" .. env .. "}")}
    for _, b in ipairs(div.content) do table.insert(out, b) end
    table.insert(out, pandoc.RawBlock("latex", "\\end{" .. env .. "}"))
    return out
  end
  return div
end
