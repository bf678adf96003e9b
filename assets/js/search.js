// transcriptsite search: reads the static index in search/ and shows
// results. The core (tokenize, parse, Searcher) has no DOM and is tested in
// Node; the page code at the end builds results with textContent only.
(function (root) {
  "use strict";

  var MAX_TOKEN = 64;
  var ideograph = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
  var word = /[\p{L}\p{N}\p{Mn}_]/u;

  // tokenize must split text exactly as the Go indexer's Tokenize does.
  function tokenize(text) {
    var out = [];
    var cur = "";
    var flush = function () {
      if (cur && cur.length <= MAX_TOKEN) out.push(cur.toLowerCase());
      cur = "";
    };
    for (var ch of text) {
      if (ideograph.test(ch)) {
        flush();
        out.push(ch);
      } else if (word.test(ch)) {
        cur += ch;
      } else {
        flush();
      }
    }
    flush();
    return out;
  }

  // parse turns a query into units, every one of which a result must match:
  // a term, a phrase (quoted, or a word such as a path that splits into
  // several terms), or a prefix (a word ending in *, or, while the query is
  // being typed, its last word).
  function parse(query, typing) {
    var units = [];
    var re = /"([^"]*)"?|(\S+)/g;
    var m;
    while ((m = re.exec(query))) {
      var quoted = m[1] !== undefined;
      var raw = quoted ? m[1] : m[2];
      var prefix = !quoted && /\*$/.test(raw);
      var toks = tokenize(raw);
      if (!toks.length) continue;
      if (toks.length > 1 || quoted) units.push({ phrase: toks, prefix: prefix });
      else units.push({ term: toks[0], prefix: prefix });
    }
    if (typing && units.length && !/[\s"*]$/.test(query)) units[units.length - 1].prefix = true;
    return units;
  }

  // decode reads a posting list: per document the delta of its id, its
  // flags (role | kinds << 2), the count of positions and their deltas.
  function decode(ints) {
    var docs = new Map();
    var doc = 0;
    for (var i = 0; i < ints.length; ) {
      doc += ints[i++];
      var flags = ints[i++];
      var n = ints[i++];
      var pos = new Array(n);
      var p = 0;
      for (var j = 0; j < n; j++) {
        p += ints[i++];
        pos[j] = p;
      }
      docs.set(doc, { flags: flags, pos: pos });
    }
    return docs;
  }

  function lowerBound(list, x, key) {
    var lo = 0;
    var hi = list.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (key(list[mid]) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // Searcher runs queries against the index at base (a URL ending in /).
  // fetchJSON(url) returns a promise of the parsed file.
  function Searcher(base, fetchJSON) {
    this.base = base;
    this.fetchJSON = fetchJSON;
    this.shards = new Map();
    this.blocks = new Map();
    this.bytes = 0;
  }

  Searcher.prototype.load = function () {
    var self = this;
    if (!this.ready) {
      this.ready = this.fetchJSON(this.base + "meta.json").then(function (meta) {
        if (meta.version !== 1) throw new Error("unknown search index version " + meta.version);
        self.meta = meta;
        return self.fetchJSON(self.base + meta.sessions);
      }).then(function (table) {
        self.table = table;
        return self;
      });
    }
    return this.ready;
  };

  Searcher.prototype.shard = function (i) {
    var s = this.shards.get(i);
    if (!s) {
      s = this.fetchJSON(this.base + "t/" + i + ".json?v=" + this.meta.build);
      this.shards.set(i, s);
    }
    return s;
  };

  // postings returns, for a term (or every term with the prefix), the map of
  // document → {flags, pos}; for a prefix, the terms matched too. The meta
  // file lists where each shard starts: a term is in the last shard that
  // starts at or before it, and a prefix's terms may run on into the next.
  Searcher.prototype.postings = function (term, prefix) {
    var starts = this.meta.shards;
    var first = lowerBound(starts, term, function (s) { return s; });
    if (first === starts.length || starts[first] !== term) first--;
    var refs = [Math.max(0, first)];
    for (var i = refs[0] + 1; prefix && i < starts.length && starts[i].startsWith(term); i++) refs.push(i);
    var self = this;
    return Promise.all(refs.map(function (r) { return self.shard(r); })).then(function (loaded) {
      var out = new Map();
      var terms = [];
      loaded.forEach(function (sh) {
        var k = lowerBound(sh.t, term, function (t) { return t; });
        for (; k < sh.t.length; k++) {
          var t = sh.t[k];
          if (t !== term && !(prefix && t.startsWith(term))) break;
          if (terms.length >= 100) break; // a one-letter prefix: enough
          terms.push(t);
          decode(sh.p[k]).forEach(function (v, doc) {
            var have = out.get(doc);
            if (!have) out.set(doc, { flags: v.flags, pos: v.pos.slice(), terms: [t] });
            else {
              have.pos = have.pos.concat(v.pos);
              have.terms.push(t);
            }
          });
        }
      });
      return { docs: out, terms: terms };
    });
  };

  // unitDocs returns the documents that match a unit, with the positions
  // of the unit's matches and the terms to highlight.
  Searcher.prototype.unitDocs = function (u) {
    if (u.term !== undefined) return this.postings(u.term, u.prefix);
    var self = this;
    var last = u.phrase.length - 1;
    return Promise.all(u.phrase.map(function (t, i) {
      return self.postings(t, u.prefix && i === last);
    })).then(function (lists) {
      var out = new Map();
      lists[0].docs.forEach(function (first, doc) {
        var starts = first.pos.filter(function (p) {
          return lists.every(function (l, i) {
            var d = l.docs.get(doc);
            return d && d.pos.indexOf(p + i) >= 0;
          });
        });
        if (starts.length) out.set(doc, { flags: first.flags, pos: starts, terms: [] });
      });
      var terms = [];
      lists.forEach(function (l) { terms = terms.concat(l.terms); });
      return { docs: out, terms: terms };
    });
  };

  // session returns the index of the session a document belongs to.
  Searcher.prototype.session = function (doc) {
    var rows = this.table.sessions;
    return lowerBound(rows, doc + 1, function (r) { return r[5]; }) - 1;
  };

  // search returns the sessions that match, best first, each with its best
  // documents. filters: {project, agent, role, kind, from, to} (strings as
  // in the form; from and to as days since 1970). typing makes the last word
  // a prefix.
  Searcher.prototype.search = function (query, filters, limit, typing) {
    var self = this;
    filters = filters || {};
    limit = limit || 20;
    var units = parse(query, typing);
    return this.load().then(function () {
      if (!units.length) return { sessions: [], total: 0, terms: [] };
      return Promise.all(units.map(function (u) { return self.unitDocs(u); })).then(function (found) {
        return self.rank(found, filters, limit);
      });
    });
  };

  Searcher.prototype.rank = function (found, f, limit) {
    var table = this.table;
    var N = this.meta.docs || 1;
    var kindBit = f.kind === "" || f.kind === undefined ? -1 : table.kinds.indexOf(f.kind);
    found.sort(function (a, b) { return a.docs.size - b.docs.size; });
    var bySession = new Map();
    var total = 0;
    found[0].docs.forEach(function (first, doc) {
      if (!found.every(function (u) { return u.docs.has(doc); })) return;
      var flags = first.flags;
      if (f.role !== undefined && f.role !== "" && (flags & 3) !== Number(f.role)) return;
      if (f.kind && (kindBit < 0 || !((flags >> 2) & (1 << kindBit)))) return;
      var si = this.session(doc);
      var row = table.sessions[si];
      if (f.project && table.projects[row[1]] !== f.project) return;
      if (f.agent && table.agents[row[2]] !== f.agent) return;
      if (f.from && row[4] < f.from) return;
      if (f.to && row[4] > f.to) return;
      var score = 0;
      found.forEach(function (u) {
        var tf = u.docs.get(doc).pos.length;
        score += (tf / (tf + 1.2)) * Math.log(1 + N / u.docs.size);
      });
      if (flags & 3) score *= 0.9; // a prompt that matches says most about a session
      total++;
      var s = bySession.get(si);
      if (!s) {
        s = { session: si, score: 0, docs: [] };
        bySession.set(si, s);
      }
      s.score = Math.max(s.score, score);
      s.docs.push({ doc: doc, score: score });
    }, this);
    var sessions = Array.from(bySession.values());
    sessions.sort(function (a, b) {
      return b.score - a.score || table.sessions[b.session][4] - table.sessions[a.session][4] || a.session - b.session;
    });
    var terms = [];
    found.forEach(function (u) { terms = terms.concat(u.terms); });
    sessions = sessions.slice(0, limit).map(function (s) {
      s.docs.sort(function (a, b) { return b.score - a.score || a.doc - b.doc; });
      s.docs = s.docs.slice(0, 3);
      var row = table.sessions[s.session];
      return {
        session: s.session, title: row[0], project: table.projects[row[1]], agent: table.agents[row[2]],
        model: table.models[row[3]], day: row[4], docs: s.docs.map(function (d) { return d.doc; }),
      };
    });
    return { sessions: sessions, total: total, matchedSessions: bySession.size, terms: terms };
  };

  // path returns the page of a session, from its block of paths.
  Searcher.prototype.path = function (session) {
    var size = this.meta.paths;
    var b = Math.floor(session / size);
    var key = "p" + b;
    var p = this.blocks.get(key);
    if (!p) {
      p = this.fetchJSON(this.base + "p/" + b + ".json?v=" + this.meta.build);
      this.blocks.set(key, p);
    }
    return p.then(function (paths) { return paths[session - b * size]; });
  };

  // excerpt returns the text of a document as [n, role, text], from its block.
  Searcher.prototype.excerpt = function (doc) {
    var size = this.meta.block;
    var b = Math.floor(doc / size);
    var p = this.blocks.get(b);
    if (!p) {
      p = this.fetchJSON(this.base + "f/" + b + ".json?v=" + this.meta.build);
      this.blocks.set(b, p);
    }
    return p.then(function (rows) { return rows[doc - b * size]; });
  };

  // highlight splits text into pieces, marking the words whose terms were
  // matched, around the first match: [{text, mark}].
  function highlight(text, terms, width) {
    width = width || 240;
    var want = new Set(terms);
    var re = /[\p{L}\p{N}\p{Mn}_]+|[^\p{L}\p{N}\p{Mn}_]+/gu;
    var pieces = [];
    var first = -1;
    var m;
    var at = 0;
    while ((m = re.exec(text))) {
      var t = m[0];
      var toks = tokenize(t);
      var mark = toks.length > 0 && toks.some(function (x) {
        return want.has(x) || terms.some(function (w) { return w.length > 2 && x.startsWith(w) && want.has(w); });
      });
      if (mark && first < 0) first = at;
      pieces.push({ text: t, mark: mark, at: at });
      at += t.length;
    }
    var start = Math.max(0, (first < 0 ? 0 : first) - width / 3);
    var end = start + width;
    var out = [];
    pieces.forEach(function (p) {
      if (p.at + p.text.length < start || p.at > end) return;
      out.push({ text: p.text, mark: p.mark });
    });
    if (start > 0) out.unshift({ text: "…", mark: false });
    if (end < text.length) out.push({ text: "…", mark: false });
    return out;
  }

  var api = { tokenize: tokenize, parse: parse, decode: decode, Searcher: Searcher, highlight: highlight };
  if (typeof module === "object" && module.exports) module.exports = api;
  root.transcriptsiteSearch = api;

  // The search page.
  if (typeof document === "undefined") return;
  var page = document.getElementById("search");
  if (!page) return;
  var form = document.getElementById("search-form");
  var input = document.getElementById("search-query");
  var status = document.getElementById("search-status");
  var list = document.getElementById("search-results");
  var base = new URL(".", new URL(page.dataset.meta, location.href)).href;
  var siteRoot = new URL(page.dataset.root, location.href).href.replace(/index\.html$/, "");
  var portable = page.hasAttribute("data-portable");
  var searcher = new Searcher(base, function (url) {
    return fetch(url).then(function (r) {
      if (!r.ok) throw new Error(url + ": " + r.status);
      return r.json();
    });
  });
  var roles = ["user", "assistant", "system", "tool"];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function day(d) {
    return d ? new Date(d * 86400000).toISOString().slice(0, 10) : "";
  }

  function pageURL(path) {
    return siteRoot + path + (portable ? "index.html" : "");
  }

  function filters() {
    var f = {};
    ["project", "agent", "role", "kind"].forEach(function (k) { f[k] = form.elements[k].value; });
    ["from", "to"].forEach(function (k) {
      var v = form.elements[k].value;
      if (v) f[k] = Math.floor(Date.parse(v + "T00:00:00Z") / 86400000);
    });
    return f;
  }

  function fillSelect(name, values) {
    var sel = form.elements[name];
    values.filter(function (v) { return v; }).slice().sort().forEach(function (v) {
      var o = el("option", "", v);
      o.value = v;
      sel.appendChild(o);
    });
  }

  function syncURL() {
    var params = new URLSearchParams();
    if (input.value) params.set("q", input.value);
    ["project", "agent", "role", "kind", "from", "to"].forEach(function (k) {
      if (form.elements[k].value) params.set(k, form.elements[k].value);
    });
    var qs = params.toString();
    history.replaceState(null, "", qs ? "?" + qs : location.pathname);
  }

  var seq = 0;
  var limit = 10; // sessions shown; "More results" shows more
  var more = el("button", "search-more", "More results");
  more.type = "button";
  more.hidden = true;
  list.insertAdjacentElement("afterend", more);
  more.addEventListener("click", function () {
    limit += 10;
    run(true);
  });

  function run(keepLimit, typing) {
    if (!keepLimit) limit = 10;
    var mine = ++seq;
    var q = input.value;
    syncURL();
    if (!q.trim()) {
      list.replaceChildren();
      status.textContent = "";
      more.hidden = true;
      return;
    }
    var t0 = performance.now();
    searcher.search(q, filters(), limit, typing).then(function (res) {
      if (mine !== seq) return;
      var ms = Math.round(performance.now() - t0);
      status.textContent = res.total
        ? res.total + " matching messages in " + res.matchedSessions + " sessions (" + ms + " ms)"
        : "No messages match.";
      list.replaceChildren();
      more.hidden = res.matchedSessions <= res.sessions.length;
      res.sessions.forEach(function (s) {
        var li = el("li", "search-result");
        var h = el("h2", "search-result-title");
        var a = el("a", "", s.title);
        h.appendChild(a);
        li.appendChild(h);
        li.appendChild(el("p", "meta", [s.project, s.agent, day(s.day)].filter(Boolean).join(" · ")));
        var hits = el("ul", "search-hits");
        li.appendChild(hits);
        list.appendChild(li);
        var path = searcher.path(s.session);
        path.then(function (p) { a.href = pageURL(p); });
        s.docs.slice(0, 2).forEach(function (doc) {
          var hit = el("li", "search-hit");
          hits.appendChild(hit);
          Promise.all([searcher.excerpt(doc), path]).then(function (got) {
            var row = got[0];
            if (mine !== seq || !row) return;
            var link = el("a", "search-hit-link");
            link.href = pageURL(got[1]) + "#m-" + row[0];
            link.appendChild(el("span", "search-hit-role", "#" + row[0] + " " + roles[row[1]]));
            var text = el("span", "search-hit-text");
            highlight(row[2], res.terms).forEach(function (p) {
              text.appendChild(p.mark ? el("mark", "", p.text) : document.createTextNode(p.text));
            });
            link.appendChild(text);
            hit.appendChild(link);
          });
        });
      });
    }).catch(function (err) {
      status.textContent = location.protocol === "file:"
        ? "Search needs the site served over HTTP (transcriptsite serve, or any web server)."
        : "Search failed: " + err.message;
    });
  }

  var timer;
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    run(false);
  });
  form.addEventListener("input", function (e) {
    clearTimeout(timer);
    var typing = e.target === input;
    timer = setTimeout(function () { run(false, typing); }, 120);
  });
  searcher.load().then(function () {
    var t = searcher.table;
    fillSelect("project", t.projects);
    fillSelect("agent", t.agents);
    fillSelect("kind", t.kinds);
    var params = new URLSearchParams(location.search);
    input.value = params.get("q") || "";
    ["project", "agent", "role", "kind", "from", "to"].forEach(function (k) {
      if (params.has(k)) form.elements[k].value = params.get(k);
    });
    if (input.value) run(false);
    input.focus();
  }).catch(function (err) {
    status.textContent = location.protocol === "file:"
      ? "Search needs the site served over HTTP (transcriptsite serve, or any web server)."
      : "Search failed to load: " + err.message;
  });
})(typeof globalThis !== "undefined" ? globalThis : this);
