// transcriptsite: theme toggle, copy buttons and keyboard navigation.
// Everything here adds to a page that works without it.
(function () {
  "use strict";
  var root = document.documentElement;
  var dark = window.matchMedia("(prefers-color-scheme: dark)");

  function theme() {
    return root.dataset.theme || (dark.matches ? "dark" : "light");
  }

  var toggle = document.querySelector(".theme-toggle");
  if (toggle) {
    var label = function () {
      var next = theme() === "dark" ? "light" : "dark";
      toggle.textContent = next === "dark" ? "Dark theme" : "Light theme";
      toggle.setAttribute("aria-label", "Switch to the " + next + " theme");
    };
    toggle.hidden = false;
    label();
    toggle.addEventListener("click", function () {
      var next = theme() === "dark" ? "light" : "dark";
      root.dataset.theme = next;
      try {
        localStorage.setItem("transcriptsite-theme", next);
      } catch (e) {}
      label();
    });
    dark.addEventListener("change", label);
  }

  function copy(text, button) {
    var done = function () {
      var was = button.textContent;
      button.textContent = "Copied";
      button.classList.add("copied");
      setTimeout(function () {
        button.textContent = was;
        button.classList.remove("copied");
      }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done);
      return;
    }
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "copy-source";
    document.body.appendChild(area);
    area.select();
    try {
      if (document.execCommand("copy")) done();
    } catch (e) {}
    area.remove();
  }

  function button(cls, text, title) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = cls;
    b.textContent = text;
    b.title = title;
    return b;
  }

  // The text of a code block, without line numbers and diff markers.
  function codeText(block) {
    var rows = block.querySelectorAll(".row");
    if (!rows.length) return block.querySelector("code").textContent;
    return Array.prototype.map
      .call(rows, function (r) {
        var t = "";
        r.childNodes.forEach(function (n) {
          if (!(n.classList && (n.classList.contains("ln") || n.classList.contains("mk")))) t += n.textContent;
        });
        return t;
      })
      .join("\n");
  }

  document.querySelectorAll(".highlight, .rows").forEach(function (block) {
    var holder = block.classList.contains("rows") ? block.parentNode : block;
    if (!holder.querySelector(":scope > .copy-code")) {
      holder.classList.add("has-copy");
      var b = button("copy-code", "Copy", "Copy this code");
      b.addEventListener("click", function () {
        copy(codeText(block), b);
      });
      holder.appendChild(b);
    }
  });

  document.querySelectorAll(".msg:not(.row) .anchor").forEach(function (a) {
    var b = button("copy-link", "Copy link", "Copy a link to this message");
    b.addEventListener("click", function () {
      copy(a.href, b);
    });
    a.closest(".msg-head").appendChild(b);
  });

  // A region that scrolls can be focused, so it can be scrolled from the
  // keyboard. Sizes are read first, then attributes written: one layout.
  var scrollers = Array.prototype.filter.call(
    document.querySelectorAll("pre, .rows, .facts dd, .outline ol, .scroll, .text table"),
    function (e) {
      var st = getComputedStyle(e);
      var scrolls = function (o) {
        return o === "auto" || o === "scroll";
      };
      return (
        (scrolls(st.overflowY) && e.scrollHeight > e.clientHeight + 1) ||
        (scrolls(st.overflowX) && e.scrollWidth > e.clientWidth + 1)
      );
    }
  );
  scrollers.forEach(function (e) {
    if (!e.querySelector("a, button, summary, input, select")) e.tabIndex = 0;
  });

  // The anchor of a message that only held tool results leads to the call
  // that shows them: open it.
  function openAlias() {
    var t = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (t && t.classList.contains("alias") && t.nextElementSibling && t.nextElementSibling.tagName === "DETAILS") {
      t.nextElementSibling.open = true;
      t.scrollIntoView();
    }
  }
  openAlias();
  window.addEventListener("hashchange", openAlias);

  // What a session page shows: prompts only, without tool calls or
  // thinking, each message's tokens, every block open or closed; kept in
  // the address (?only=prompts&tools=0&thinking=0&tokens=1&open=all) so a
  // view can be linked.
  var session = document.getElementById("session");
  var view = document.getElementById("view-controls");
  if (session && view) {
    var params = new URLSearchParams(location.search);
    var el = view.elements;
    el.only.checked = params.get("only") === "prompts";
    el.tools.checked = params.get("tools") !== "0";
    el.thinking.checked = params.get("thinking") !== "0";
    el.tokens.checked = params.get("tokens") === "1";
    var open = params.get("open");
    var apply = function () {
      session.classList.toggle("only-prompts", el.only.checked);
      session.classList.toggle("hide-tools", !el.tools.checked);
      session.classList.toggle("hide-thinking", !el.thinking.checked);
      session.classList.toggle("hide-tokens", !el.tokens.checked);
      var p = new URLSearchParams(location.search);
      var set = function (k, v) {
        if (v) p.set(k, v);
        else p.delete(k);
      };
      set("only", el.only.checked && "prompts");
      set("tools", !el.tools.checked && "0");
      set("thinking", !el.thinking.checked && "0");
      set("tokens", el.tokens.checked && "1");
      set("open", open);
      var qs = p.toString();
      history.replaceState(null, "", (qs ? "?" + qs : location.pathname) + location.hash);
    };
    var openAll = function () {
      if (open === "all" || open === "none") {
        session.querySelectorAll("details").forEach(function (d) {
          d.open = open === "all";
        });
      }
    };
    view.addEventListener("change", apply);
    view.addEventListener("click", function (e) {
      var b = e.target.closest("button[name=open]");
      if (!b) return;
      open = b.value;
      openAll();
      apply();
    });
    view.hidden = false;
    openAll();
    apply();
  }

  // On a narrow screen the prompts' outline is above the messages:
  // folded, so the first message is on the first screen.
  var outline = document.querySelector(".outline-list");
  if (outline && !window.matchMedia("(min-width: 72rem)").matches) outline.open = false;

  // The search box opens the search page; the page's own form runs queries.
  var box = document.getElementById("search-box");
  if (box) {
    box.addEventListener("submit", function (e) {
      e.preventDefault();
      var q = box.elements.q.value.trim();
      if (q) location.href = box.dataset.search + "?q=" + encodeURIComponent(q);
    });
  }

  // j and k move between prompts; / goes to the search box.
  var turns = Array.prototype.slice.call(document.querySelectorAll(".turn[data-prompt]"));
  document.addEventListener("keydown", function (e) {
    if (e.metaKey || e.ctrlKey || e.altKey || e.target.closest("input, textarea, select, [contenteditable]")) return;
    if ((e.key === "j" || e.key === "k") && turns.length) {
      var target;
      if (e.key === "j") {
        target = turns.find(function (t) {
          return t.getBoundingClientRect().top > 8;
        });
      } else {
        target = turns
          .filter(function (t) {
            return t.getBoundingClientRect().top < -8;
          })
          .pop();
      }
      if (target) {
        e.preventDefault();
        target.scrollIntoView({ block: "start" });
        var first = target.querySelector(".msg");
        if (first) history.replaceState(null, "", "#" + first.id);
      }
    } else if (e.key === "/") {
      var input = document.getElementById("search-input") || document.getElementById("search-query");
      if (input) {
        e.preventDefault();
        input.focus();
      }
    }
  });
})();
