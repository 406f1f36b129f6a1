// search.js — the search box of the web edition, offline: the index is
// search-index.js (window.NL_SEARCH, one record per section: page#anchor,
// heading, page title, text), written by scripts/web/web.sh, loaded as a script so that
// it works from file:// where fetch() of a JSON file does not.
(function () {
  "use strict";
  var input = document.getElementById("q");
  var list = document.getElementById("results");
  var index = window.NL_SEARCH || [];
  if (!input || !list) return;
  var lower = index.map(function (r) { return (r.t + " " + r.x).toLowerCase(); });

  function excerpt(text, word) {
    var at = text.toLowerCase().indexOf(word);
    if (at < 0) return text.slice(0, 120);
    var from = Math.max(0, at - 50);
    return (from > 0 ? "…" : "") + text.slice(from, from + 140) + "…";
  }

  function show() {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    list.textContent = "";
    if (words.length === 0) { list.hidden = true; return; }
    var hits = [];
    for (var i = 0; i < index.length && hits.length < 30; i++) {
      if (words.every(function (w) { return lower[i].indexOf(w) >= 0; })) hits.push(index[i]);
    }
    if (hits.length === 0) {
      var none = document.createElement("li");
      none.textContent = "Nothing found for \u201c" + input.value + "\u201d.";
      none.style.padding = "0.35em 0.8em";
      list.appendChild(none);
    }
    hits.forEach(function (r) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = r.p;
      var b = document.createElement("b");
      b.textContent = r.t || r.p;
      var c = document.createElement("i");
      c.textContent = r.c && r.c !== r.t ? r.c : "";
      var s = document.createElement("small");
      s.textContent = excerpt(r.x, words[0]);
      a.appendChild(b); a.appendChild(c); a.appendChild(s); li.appendChild(a); list.appendChild(li);
    });
    list.hidden = false;
  }

  input.addEventListener("input", show);
  input.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { input.value = ""; show(); }
    if (e.key === "Enter") {
      var first = list.querySelector("a");
      if (first) window.location.href = first.href;
    }
  });
  document.addEventListener("click", function (e) {
    if (!e.target.closest || !e.target.closest("form.search")) list.hidden = true;
  });
})();
