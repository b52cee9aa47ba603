// Lets the vendored ipywidgets manager (vendor/widget-manager) run with no network:
// the widgets it does not bundle load from this book, and widget labels that call
// the MathJax 2 API (MathJax.Hub.Queue) are typeset by the vendored MathJax 3.
// And gives the sliders names and spoken values, a skip link to the first
// slider, and wide formulas a Tab stop (below).
(function () {
  var here = document.currentScript.src.replace(/[^/]*$/, "");
  if (window.require && window.require.config) {
    window.require.config({
      paths: {
        // the attention playground (an anywidget): its module from this book, not a CDN
        anywidget: here + "vendor/anywidget/index",
      },
    });
  }
  // MathJax 2's API for widget labels (MathJax.Hub.Queue(["Typeset", hub, el])),
  // answered by MathJax 3. Widgets may be drawn before, while or after MathJax
  // loads, and MathJax 3 replaces window.MathJax (the page's configuration) with
  // its own object when it starts: the Hub is put on every object window.MathJax
  // becomes, and a label queued before MathJax is ready is typeset once it is.
  var waiting = [];
  function typeset(el) {
    var mj = window.MathJax;
    if (mj && mj.typesetPromise) {
      mj.typesetPromise([el]).catch(function () {});
    } else {
      waiting.push(el);
    }
  }
  var hub = {
    Queue: function () {
      for (var i = 0; i < arguments.length; i++) {
        var job = arguments[i];
        if (Array.isArray(job) && job[0] === "Typeset" && job[2]) typeset(job[2]);
      }
    },
  };
  function withHub(mj) {
    if (mj && typeof mj === "object" && !mj.Hub) {
      try { mj.Hub = hub; } catch (e) { /* a frozen object: nothing to add */ }
    }
    return mj;
  }
  var current = withHub(window.MathJax);
  try {
    Object.defineProperty(window, "MathJax", {
      configurable: true, enumerable: true,
      get: function () { return current; },
      set: function (value) { current = withHub(value); },
    });
  } catch (e) { /* not configurable: the timer below still adds the Hub */ }
  function addHub() {
    var mj = withHub(window.MathJax);
    if (mj && mj.typesetPromise && waiting.length) waiting.splice(0).forEach(typeset);
    return mj && mj.typesetPromise && !waiting.length;
  }

  // Sliders a screen reader can use (issue 37). noUiSlider's handle (role
  // "slider") has no name and announces its position index ("0"); here it is
  // named by the slider's visible label (aria-labelledby) and announces the value
  // its readout shows ("2", "fur", 猫毛) as aria-valuetext, kept in step with
  // every move (noUiSlider rewrites aria-valuetext on each update).
  var labels = 0, pending = false;
  // A keyboard reader reaches the figures without tabbing through every link and
  // code box before them: beside the theme's "Skip to main content", a second skip
  // link leads to the page's first slider (Tab, Tab, Enter).
  function addSkipLink(handle) {
    var skip = document.getElementById("pst-skip-link");
    if (!skip || skip.querySelector(".book-skip-to-slider")) return;
    var link = document.createElement("a");
    link.className = "book-skip-to-slider";
    link.href = "#";
    link.textContent = /^zh/.test(document.documentElement.lang) ? "跳转至第一个滑块" : "Skip to the first slider";
    link.addEventListener("click", function (event) {
      event.preventDefault();
      var first = document.querySelector(".widget-hslider .noUi-handle, .widget-vslider .noUi-handle");
      if (first) {
        first.scrollIntoView({block: "center"});
        first.focus();
      }
    });
    skip.appendChild(link);
  }
  function nameSliders() {
    pending = false;
    var first = document.querySelector(".widget-hslider .noUi-handle, .widget-vslider .noUi-handle");
    if (first) addSkipLink(first);
    document.querySelectorAll(".widget-hslider, .widget-vslider").forEach(function (slider) {
      var handle = slider.querySelector(".noUi-handle");
      if (!handle) return;
      var label = slider.querySelector(":scope > .widget-label");
      if (label && label.textContent.trim() && !handle.hasAttribute("aria-labelledby")) {
        if (!label.id) label.id = "book-slider-label-" + ++labels;
        handle.setAttribute("aria-labelledby", label.id);
      }
      var readout = slider.querySelector(":scope > .widget-readout");
      var shown = readout && readout.textContent.trim();
      if (shown && handle.getAttribute("aria-valuetext") !== shown) {
        handle.setAttribute("aria-valuetext", shown);
      }
    });
  }
  // A formula wider than its box scrolls sideways; with MathJax's menu out of the
  // Tab order (the book's mathjax3_config), such a formula is made a Tab stop
  // itself, so the keyboard can scroll it (and only such a formula).
  function focusableWideMath() {
    document.querySelectorAll('mjx-container[display="true"]').forEach(function (math) {
      if (math.scrollWidth > math.clientWidth + 1 && math.getAttribute("tabindex") !== "0") {
        math.setAttribute("tabindex", "0");
      }
    });
  }
  function tidy() {
    nameSliders();
    focusableWideMath();
  }
  window.addEventListener("resize", focusableWideMath);
  new MutationObserver(function () {
    if (!pending) {
      pending = true;
      queueMicrotask(tidy);
    }
  }).observe(document.documentElement, {
    subtree: true, childList: true, characterData: true,
    attributes: true, attributeFilter: ["aria-valuetext"],
  });

  var tries = 0;
  var timer = setInterval(function () {
    if (addHub() || ++tries > 1200) clearInterval(timer);   // up to 30 s for MathJax
  }, 25);
})();
