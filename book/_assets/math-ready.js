// Nothing on the page jumps when its formulas are drawn (issue 37): MathJax typesets
// after the page is first shown, and every formula it draws is narrower or wider than
// the TeX source it replaces, so the text around it moved (chapter 7's first screen:
// layout shift 0.16). The article stays invisible (its place kept) until MathJax has
// drawn the formulas, at most 2.5 s; without JavaScript it is never hidden.
(function () {
  var root = document.documentElement;
  root.classList.add("math-pending");
  function shown() { root.classList.remove("math-pending"); }
  setTimeout(shown, 2500);
  var timer = setInterval(function () {
    var mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) {
      clearInterval(timer);
      mj.startup.promise.then(shown, shown);
    }
  }, 20);
})();
