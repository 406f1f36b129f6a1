-- boxes.lua — the exercises box that closes each chapter: a Div with class
-- "exercises" (written by scripts/book/book.sh from exercise.conf and the
-- exercise's README) becomes a framed box in LaTeX, a styled div in HTML.
function Div(div)
  if not div.classes:includes("exercises") then return nil end
  if FORMAT:match("latex") then
    local out = {pandoc.RawBlock("latex", "\\begin{exercisesbox}")}
    for _, b in ipairs(div.content) do table.insert(out, b) end
    table.insert(out, pandoc.RawBlock("latex", "\\end{exercisesbox}"))
    return out
  end
  return div
end
