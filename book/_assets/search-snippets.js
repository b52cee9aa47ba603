// Beside each search result, the sentence around the first place its page uses a
// word searched for, from the page texts the book wrote when it was built
// (window.BOOK_SEARCH_TEXT, book/_ext/search_snippets.py): no page is fetched, so
// search works the same from a copy on disk.
(function () {
  var WIDTH = 90;   // characters either side
  function docname(href) {
    var root = document.documentElement.dataset.content_root || "";
    var url = new URL(href, window.location.href);
    var base = new URL(root, window.location.href);
    return decodeURIComponent(url.pathname.slice(base.pathname.length)).replace(/\.html$/, "");
  }
  function snippet(item, words) {
    var link = item.querySelector("a");
    if (!link || item.querySelector(".context")) return;
    var text = (window.BOOK_SEARCH_TEXT || {})[docname(link.href)];
    if (!text) return;
    var lower = text.toLowerCase(), at = -1, word = "";
    for (var k = 0; k < words.length && at === -1; k++) {
      at = lower.indexOf(words[k]);
      word = words[k];
    }
    var p = document.createElement("p");
    p.className = "context";
    if (at === -1) {
      p.textContent = text.slice(0, 2 * WIDTH) + (text.length > 2 * WIDTH ? " …" : "");
    } else {
      var start = Math.max(0, at - WIDTH), end = Math.min(text.length, at + word.length + WIDTH);
      var mark = document.createElement("span");
      mark.className = "highlighted";
      mark.textContent = text.slice(at, at + word.length);
      p.append((start > 0 ? "… " : "") + text.slice(start, at), mark,
               text.slice(at + word.length, end) + (end < text.length ? " …" : ""));
    }
    item.appendChild(p);
  }
  function start() {
    var results = document.getElementById("search-results");
    var query = new URLSearchParams(window.location.search).get("q") || "";
    // the whole query first, then each of its words
    var whole = query.toLowerCase().trim();
    var words = [whole].concat(whole.split(/[^\p{L}\p{N}_]+/u)).filter(Boolean);
    if (window.Stemmer) {   // as Sphinx found them: "scaled" also matches "scale", "scaling" (stem "scale")
      var stemmer = new Stemmer();
      words = words.concat(words.map(function (w) { return stemmer.stemWord(w); }));
    }
    if (!results || !words.length) return;
    new MutationObserver(function () {
      results.querySelectorAll("li").forEach(function (li) { snippet(li, words); });
    }).observe(results, { childList: true, subtree: true });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
