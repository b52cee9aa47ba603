// The book's search scorer (html_search_scorer; book/_ext/search_snippets.py).
// Sphinx's score (a word in a title counts more than one in the text), plus how
// often the words searched for occur in the page's text (window.BOOK_SEARCH_TEXT,
// loaded by the search page), so the page that talks most about it comes first;
// pages that still tie keep the book's order (window.BOOK_SEARCH_ORDER), not the
// alphabetical order of their titles (1, 10, 11, 2 ...).
var Scorer = {
  score: function (result) {
    var docname = result[0], score = result[4];
    var texts = window.BOOK_SEARCH_TEXT || {}, order = window.BOOK_SEARCH_ORDER || [];
    var text = (texts[docname] || "").toLowerCase();
    var query = new URLSearchParams(window.location.search).get("q") || "";
    var count = 0;
    var stemmer = window.Stemmer ? new Stemmer() : null;
    function occurrences(word) {
      var n = 0;
      for (var at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + word.length)) n++;
      return n;
    }
    query.toLowerCase().split(/\s+/).filter(Boolean).forEach(function (word) {
      // the word as typed, or its stem as Sphinx matched it (scaled: scale, scaling)
      count += Math.max(occurrences(word), stemmer ? occurrences(stemmer.stemWord(word)) : 0);
    });
    var place = order.indexOf(docname);
    return score + 10 * Math.log2(1 + count) - (place < 0 ? order.length : place) / 1000;
  },
  // Sphinx's defaults (sphinx/themes/basic/static/searchtools.js)
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
