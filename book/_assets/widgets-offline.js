// Lets the vendored ipywidgets manager (vendor/widget-manager) run with no network:
// the widgets it does not bundle load from this book, and widget labels that call
// the MathJax 2 API (MathJax.Hub.Queue) are typeset by the vendored MathJax 3.
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
  function addHub() {
    var mj = window.MathJax;
    if (mj && !mj.Hub) {
      mj.Hub = {
        Queue: function () {
          for (var i = 0; i < arguments.length; i++) {
            var job = arguments[i];
            if (Array.isArray(job) && job[0] === "Typeset" && mj.typesetPromise) {
              mj.typesetPromise([job[2]]).catch(function () {});
            }
          }
        },
      };
    }
    return mj && mj.typesetPromise;
  }
  addHub();
  var tries = 0;
  var timer = setInterval(function () {
    if (addHub() || ++tries > 200) clearInterval(timer);
  }, 25);
})();
