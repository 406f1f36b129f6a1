-- web.lua — what turns one page of the book into a page of the web edition
-- (scripts/web/web.sh runs it after book/snippets.lua and book/boxes.lua).
--
-- The pages are rendered one at a time, so a link written for the
-- repository (`[chapter 3](chapters/03-variance.md)`, `sumsq.c` in an
-- exercise README, `#huge` in another chapter) must be pointed at the page
-- or file it means, from build/web/. The environment says where things are:
--   WEB_SOURCE     the document this page is made from (chapters/05-simd.md)
--   WEB_ROOT       the path from the output folder to the repository root
--   WEB_PAGES      a file of "SOURCE PAGE" lines: every document with a page
--   WEB_IDS        a file of "ID PAGE" lines: every anchor of every page
--                  (written by the first pass, WEB_PASS=ids)
--   WEB_OUT        the output folder (figures are copied to WEB_OUT/img/)
--   WEB_SEARCH     a file to which this page's sections are appended, for
--                  the offline search index
--   WEB_RESOURCES  folders where a figure may be found, ':'-separated
-- A link that resolves to nothing is left as written: the browser test
-- (scripts/web/check-web.py) then reports it.

local env = function(k, default) return os.getenv(k) or default end
local source = env("WEB_SOURCE", "")
local root = env("WEB_ROOT", ".")
local out_dir = env("WEB_OUT", ".")
local here = source:match("^(.*)/[^/]*$") or "."

local function read_map(path)
  local map = {}
  if not path then return map end
  local f = io.open(path, "r")
  if not f then return map end
  for line in f:lines() do
    local k, v = line:match("^(%S+)%s+(%S+)$")
    if k then map[k] = v end
  end
  f:close()
  return map
end

local pages = read_map(os.getenv("WEB_PAGES"))
local this_page = pages[source] or ""

-- Anchors: the page that holds each one (the first, where several pages
-- have an anchor of the same name, such as every exercise's #goal), and
-- this page's own, which a #link on this page always means.
local ids, own_ids = {}, {}
do
  local f = os.getenv("WEB_IDS") and io.open(os.getenv("WEB_IDS"), "r")
  if f then
    for line in f:lines() do
      local id, page = line:match("^(%S+)%s+(%S+)$")
      if id then
        ids[id] = ids[id] or page
        if page == this_page then own_ids[id] = true end
      end
    end
    f:close()
  end
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() return true end
  return false
end

-- a/b/../c/./d -> a/c/d (paths inside the repository, never above it)
local function normalize(path)
  local parts = {}
  for p in path:gmatch("[^/]+") do
    if p == ".." then
      if #parts == 0 then return nil end
      table.remove(parts)
    elseif p ~= "." then
      table.insert(parts, p)
    end
  end
  return table.concat(parts, "/")
end

-- The target of a link written in the document, as seen from build/web/.
local function retarget(target)
  if target:match("^%a[%w+.-]*:") then return target end   -- http:, mailto:
  if target:sub(1, 1) == "#" then
    local id = target:sub(2)
    if own_ids[id] or not ids[id] then return target end
    return ids[id] .. target
  end
  local path, frag = target:match("^([^#]*)(#?.*)$")
  local resolved = normalize(here .. "/" .. path)
  if not resolved then return target end
  if pages[resolved] then return pages[resolved] .. frag end
  if exists(resolved) or resolved == "" then return root .. "/" .. resolved .. frag end
  local from_root = normalize(path)         -- written relative to the root
  if from_root and pages[from_root] then return pages[from_root] .. frag end
  if from_root and exists(from_root) then return root .. "/" .. from_root .. frag end
  return target
end

-- The first pass only records which page holds which anchor.
if env("WEB_PASS", "") == "ids" then
  local out = assert(io.open(os.getenv("WEB_IDS"), "a"))
  local function note(el)
    if el.identifier and el.identifier ~= "" then out:write(el.identifier, " ", this_page, "\n") end
  end
  return {{Header = note, Div = note, Span = note, CodeBlock = note, Table = note, Pandoc = function() out:close() end}}
end

-- Code that names a file of the repository (`code/simd/threads.c`,
-- `exercises/06-simd-sumsq/README.md`) links to it, or to its page.
local function code_link(el)
  local text = el.text
  if not text:match("^[%w_.-]+/[%w_./-]+$") then return nil end
  local path = normalize(text)
  if not path then return nil end
  if pages[path] then return pandoc.Link({el}, pages[path]) end
  if exists(path) then return pandoc.Link({el}, root .. "/" .. path, "", pandoc.Attr("", {"source"}, {})) end
  return nil
end

-- Links never nest: code inside a link stays plain code.
local function unnest(content)
  return pandoc.walk_inline(pandoc.Span(content), {Link = function(l) return l.content end}).content
end

local function link(el)
  el.content = unnest(el.content)
  el.target = retarget(el.target)
  return el
end

-- A figure is copied next to the pages. A PDF figure (the book's vector
-- format) is replaced by the SVG or PNG drawn beside it.
local function find_resource(src)
  local candidates = {normalize(here .. "/" .. src), normalize(src)}
  for dir in env("WEB_RESOURCES", ""):gmatch("[^:]+") do table.insert(candidates, dir .. "/" .. src) end
  for _, c in ipairs(candidates) do
    if c and exists(c) then return c end
  end
end

local function copy(from, to)
  local i = assert(io.open(from, "rb"))
  local data = i:read("a"); i:close()
  local o = assert(io.open(to, "wb"))
  o:write(data); o:close()
end

local function image(el)
  if el.src:match("^%a[%w+.-]*:") then return nil end
  local src = el.src
  if src:match("%.pdf$") then
    for _, ext in ipairs({".svg", ".png"}) do
      local alt = src:gsub("%.pdf$", ext)
      if find_resource(alt) then src = alt; break end
    end
  end
  local found = find_resource(src)
  if not found then
    io.stderr:write("web: " .. source .. ": figure " .. el.src .. " not found (make figures?)\n")
    return nil
  end
  local name = found:match("([^/]+)$")
  os.execute("mkdir -p '" .. out_dir .. "/img'")
  copy(found, out_dir .. "/img/" .. name)
  el.src = "img/" .. name
  return el
end

-- Every heading carries a link to itself, shown on hover.
local function header(el)
  if el.identifier ~= "" then
    table.insert(el.content, pandoc.Link({pandoc.Str("#")}, "#" .. el.identifier, "",
      pandoc.Attr("", {"anchor"}, {{"aria-label", "link to this section"}})))
  end
  return el
end

-- A table wider than the column scrolls inside its own box.
local function table_box(el)
  return pandoc.Div({el}, pandoc.Attr("", {"scroll"}, {}))
end

-- One search record per section: the page and anchor (p), the heading
-- (t), the page's title (c) and the text under it (x), a line of JSON.
local function json_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    if c == '"' then return '\\"' elseif c == "\\" then return "\\\\" end
    return string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function search_records(doc)
  local file = os.getenv("WEB_SEARCH")
  if not file then return end
  local out = assert(io.open(file, "a"))
  local page_title = pandoc.utils.stringify(doc.meta.pagetitle or ""):gsub(" · .*$", "")
  local id, title, text = "", page_title, {}
  local function flush()
    local body = table.concat(text, " "):gsub("%-%-%-+", " "):gsub("%s+", " ")
    if body ~= "" then
      out:write("{\"p\":", json_string(this_page .. (id ~= "" and "#" .. id or "")),
        ",\"t\":", json_string(title), ",\"c\":", json_string(page_title), ",\"x\":", json_string(body), "}\n")
    end
  end
  for _, b in ipairs(doc.blocks) do
    if b.t == "Header" and b.level <= 3 then
      flush()
      id, title, text = b.identifier, pandoc.utils.stringify(b.content):gsub("#$", ""), {}
    elseif b.t ~= "RawBlock" then
      -- plain text keeps the spaces between table cells that stringify
      -- drops; formulas go in as their TeX (the plain writer would try to
      -- turn them into Unicode text, and warn where it cannot)
      local tex_only = pandoc.walk_block(b, {Math = function(m) return pandoc.Str(m.text) end})
      local ok, plain = pcall(pandoc.write, pandoc.Pandoc({tex_only}), "plain")
      table.insert(text, ok and plain or pandoc.utils.stringify(b))
    end
  end
  flush()
  out:close()
end

return {
  {Code = code_link},
  {Link = link, Image = image, Table = table_box},
  {Header = header},
  {Pandoc = function(doc) search_records(doc); return doc end},
}
