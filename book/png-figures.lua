-- png-figures.lua — the one-page HTML book (`make html`): a figure the PDF
-- shows as a vector PDF (fig-bench.pdf) is shown as the PNG drawn beside
-- it, which a browser can display. (The web edition does the same in
-- book/web/web.lua, where it also copies the figure next to its pages.)
function Image(el)
  if el.src:match("fig%-[^/]*%.pdf$") then el.src = el.src:gsub("%.pdf$", ".png") end
  return el
end
