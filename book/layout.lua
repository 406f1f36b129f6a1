-- layout.lua — page layout of the PDF that the text itself cannot ask for.
--
-- A display formula written on its own lines after the sentence that
-- introduces it ("... and $\delta = ...$,", blank line, "$$ ... $$") is
-- a paragraph of its own to pandoc, and LaTeX may break the page between
-- the two; joined to the sentence's paragraph, it cannot be separated
-- from it (TeX does not break just before a display).
if not FORMAT:match("latex") then return {} end

local function display_only(block)
  if block.t ~= "Para" then return false end
  local seen = false
  for _, el in ipairs(block.content) do
    if el.t == "Math" and el.mathtype == "DisplayMath" then seen = true
    elseif el.t ~= "Space" and el.t ~= "SoftBreak" then return false end
  end
  return seen
end

function Blocks(blocks)
  local out = {}
  for _, b in ipairs(blocks) do
    local prev = out[#out]
    if display_only(b) and prev and prev.t == "Para" then
      prev.content:insert(pandoc.SoftBreak())
      prev.content:extend(b.content)
    else
      table.insert(out, b)
    end
  end
  return out
end
