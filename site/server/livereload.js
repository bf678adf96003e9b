// transcriptsite serve: reloads the page when the site is rebuilt, swaps
// stylesheets in place, and shows build errors over the page.
(function () {
  "use strict";
  var overlay;

  function showError(message) {
    if (!overlay) {
      overlay = document.createElement("div");
      overlay.id = "transcriptsite-error";
      overlay.setAttribute("role", "alert");
      var s = overlay.style;
      s.position = "fixed";
      s.inset = "0";
      s.zIndex = "2147483647";
      s.overflow = "auto";
      s.padding = "2rem";
      s.background = "rgba(20, 20, 24, 0.94)";
      s.color = "#ffb4a9";
      s.font = "14px/1.5 ui-monospace, monospace";
      s.whiteSpace = "pre-wrap";
      document.body.appendChild(overlay);
    }
    overlay.textContent = "Build failed; showing the last good build.\n\n" + message;
  }

  // Stylesheets keep their names under serve: fetch them again.
  function swapCSS() {
    document.querySelectorAll('link[rel="stylesheet"]').forEach(function (link) {
      var url = new URL(link.href);
      url.searchParams.set("v", Date.now());
      link.href = url.href;
    });
  }

  var source = new EventSource("/__transcriptsite/events");
  source.onmessage = function (e) {
    var ev = JSON.parse(e.data);
    if (ev.type === "reload") location.reload();
    else if (ev.type === "navigate") {
      if (location.pathname === ev.path) location.reload();
      else location.href = ev.path;
    }
    else if (ev.type === "css") {
      if (overlay) location.reload();
      else swapCSS();
    } else if (ev.type === "error") showError(ev.message);
  };
})();
