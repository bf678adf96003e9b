// Applies the reader's saved colour theme before the page paints. Loaded
// without defer from <head>; main.js has the toggle.
(function () {
  try {
    var t = localStorage.getItem("transcriptsite-theme");
    if (t === "light" || t === "dark") document.documentElement.dataset.theme = t;
  } catch (e) {}
})();
