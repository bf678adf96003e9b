// transcriptsite index: filters (project, agent, model, dates) and sort
// orders for the list of sessions, read from the data-* attributes of its
// items, kept in the address so a view can be linked. Without this script
// the index lists every session, newest first, by project. The filters
// fold behind one line on a phone, which says what is set.
(function () {
  "use strict";
  var box = document.getElementById("filters-box");
  var form = document.getElementById("index-filters");
  var flat = document.getElementById("all-sessions");
  if (!box || !form || !flat) return;
  var set = document.getElementById("filters-set");
  var sections = Array.prototype.slice.call(document.querySelectorAll("section.project"));
  var items = Array.prototype.slice.call(document.querySelectorAll(".session-item[data-project]"));
  var status = document.getElementById("index-status");
  var home = new Map(); // item → its project's list
  var rank = new Map(); // item → its place in the site's order, newest first
  items.forEach(function (li, i) {
    home.set(li, li.parentNode);
    rank.set(li, i);
  });

  function num(key) {
    return function (li) {
      return parseFloat(li.dataset[key]) || 0;
    };
  }
  // Each order is a key, largest first; ties keep the site's order.
  var keys = {
    newest: function (li) {
      return -rank.get(li);
    },
    oldest: function (li) {
      return li.dataset.started ? -Date.parse(li.dataset.started) : -Infinity;
    },
    longest: num("duration"),
    messages: num("messages"),
    tools: num("tools"),
    tokens: num("tokens"),
  };
  var fields = ["project", "agent", "model", "from", "to", "sort"];

  function compare(key) {
    return function (a, b) {
      return key(b) - key(a) || rank.get(a) - rank.get(b);
    };
  }

  function matches(li, f) {
    var d = li.dataset;
    return (
      (!f.project || d.project === f.project) &&
      (!f.agent || d.agent === f.agent) &&
      (!f.model || d.models.split("\n").indexOf(f.model) >= 0) &&
      (!f.from || (d.day !== "" && d.day >= f.from)) &&
      (!f.to || (d.day !== "" && d.day <= f.to))
    );
  }

  function apply() {
    var f = {};
    fields.forEach(function (name) {
      f[name] = form.elements[name].value;
    });
    var group = form.elements.group.checked;
    var cmp = compare(keys[f.sort] || keys.newest);
    var shown = 0;
    items.forEach(function (li) {
      li.hidden = !matches(li, f);
      if (!li.hidden) shown++;
    });
    var sorted = items.slice().sort(cmp);
    if (group) {
      // Each project's sessions in the order chosen, and the projects in
      // the order of their first session shown.
      var first = new Map();
      sorted.forEach(function (li) {
        home.get(li).appendChild(li);
        if (!li.hidden && !first.has(home.get(li))) first.set(home.get(li), li);
      });
      var order = sections.slice().sort(function (a, b) {
        var fa = first.get(a.querySelector("ol.sessions"));
        var fb = first.get(b.querySelector("ol.sessions"));
        return !fa - !fb || (fa && fb ? cmp(fa, fb) : 0);
      });
      order.forEach(function (sec) {
        var list = sec.querySelector("ol.sessions");
        var count = sec.querySelector(".count[data-total]");
        var n = list.querySelectorAll(".session-item:not([hidden])").length;
        sec.hidden = n === 0;
        if (count) count.textContent = (n < +count.dataset.total ? n + " of " : "") + count.dataset.total + (count.dataset.total === "1" ? " session" : " sessions");
        flat.parentNode.insertBefore(sec, flat);
      });
      flat.hidden = true;
    } else {
      sorted.forEach(function (li) {
        flat.appendChild(li);
      });
      sections.forEach(function (sec) {
        sec.hidden = true;
      });
      flat.hidden = false;
    }
    status.textContent = shown < items.length ? shown + " of " + items.length + " sessions" : "";
    var chosen = [];
    fields.forEach(function (name) {
      if (f[name] && !(name === "sort" && f[name] === "newest")) chosen.push(name + " " + f[name]);
    });
    if (!group) chosen.push("not by project");
    set.textContent = chosen.length ? "· " + chosen.join(", ") : "";

    var q = new URLSearchParams();
    fields.forEach(function (name) {
      if (f[name] && !(name === "sort" && f[name] === "newest")) q.set(name, f[name]);
    });
    if (!group) q.set("group", "0");
    var s = q.toString();
    try {
      history.replaceState(null, "", s ? "?" + s : location.pathname);
    } catch (e) {} // some browsers refuse it on pages opened from disk
  }

  var q = new URLSearchParams(location.search);
  fields.forEach(function (name) {
    if (q.has(name)) form.elements[name].value = q.get(name);
  });
  if (q.get("group") === "0") form.elements.group.checked = false;
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (e) {
    e.preventDefault();
  });
  box.hidden = false;
  // Open where there is room; a phone keeps the list on its first screen.
  box.open = matchMedia("(min-width: 40rem)").matches;
  apply();
})();
