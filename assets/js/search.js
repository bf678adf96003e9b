// transcriptsite search: reads the static index in search/ and shows
// results. The core (tokenize, parse, Searcher) has no DOM and is tested in
// Node; the page code at the end builds results with textContent only.
(function (root) {
  "use strict";

  var MAX_TOKEN = 64;
  var MAX_SUFFIXES = 3;
  var ideograph = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
  var word = /[\p{L}\p{N}\p{Mn}_]/u;

  // utf8Len is the length of s in UTF-8 bytes, as Go counts a term's.
  function utf8Len(s) {
    var n = 0;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c < 0xdc00) {
        n += 4;
        i++;
      } else n += 3;
    }
    return n;
  }

  // scan splits text into words and compounds exactly as the Go indexer's
  // Tokenize does: words are runs of letters, digits and underscores (each
  // ideograph a word of its own); words joined by ".", "/" or "-" also make
  // a compound, and so does what follows each of its last three "/".
  function scan(text) {
    var words = [];
    var compounds = [];
    var start = -1; // of the word being read
    var cStart = -1; // of the compound's first word
    var cEnd = 0;
    var cWords = 0;
    var joined = false;
    var slash = false;
    var after = []; // [start, words before it] of each word after a "/"
    function flush(end) {
      if (start < 0) return;
      var tok = text.slice(start, end);
      start = -1;
      if (utf8Len(tok) > MAX_TOKEN) {
        cStart = -1;
        return;
      }
      cEnd = end;
      joined = true;
      slash = false;
      words.push(tok.toLowerCase());
    }
    function endCompound() {
      var from = cStart;
      var n = cWords;
      cStart = -1;
      joined = false;
      if (from < 0 || n < 2) return;
      var add = function (at) {
        var c = text.slice(at, cEnd);
        if (utf8Len(c) <= MAX_TOKEN) compounds.push(c.toLowerCase());
      };
      add(from);
      after.slice(-MAX_SUFFIXES).forEach(function (a) {
        if (n - a[1] >= 2) add(a[0]);
      });
    }
    function wordAt(i) {
      if (start >= 0) return;
      start = i;
      if (cStart >= 0 && joined) {
        if (slash) after.push([i, cWords]);
        cWords++;
      } else {
        cStart = i;
        cWords = 1;
        after = [];
      }
      joined = false;
      slash = false;
    }
    var i = 0;
    for (var ch of text) {
      if (ideograph.test(ch)) {
        flush(i);
        endCompound();
        words.push(ch);
      } else if (word.test(ch)) {
        wordAt(i);
      } else if (ch === "." || ch === "/" || ch === "-") {
        flush(i);
        if (ch === "/") slash = true;
      } else {
        flush(i);
        endCompound();
      }
      i += ch.length;
    }
    flush(i);
    endCompound();
    return { words: words, compounds: compounds };
  }

  function tokenize(text) {
    return scan(text).words;
  }

  // parse turns a query into units, every one of which a result must match:
  // a term, a phrase (quoted, or a word such as a path that splits into
  // several terms, which is looked up first as the compound it is), or a
  // prefix (a word ending in *, or the query's last word unless a space
  // follows it). The query alone decides: typed, submitted or linked, it
  // finds the same.
  function parse(query) {
    var units = [];
    var re = /"([^"]*)"?|(\S+)/g;
    var m;
    while ((m = re.exec(query))) {
      var quoted = m[1] !== undefined;
      var raw = quoted ? m[1] : m[2];
      var prefix = !quoted && /\*$/.test(raw);
      var sc = scan(raw);
      var toks = sc.words;
      if (!toks.length) continue;
      if (toks.length > 1 || quoted) {
        var unit = { phrase: toks, prefix: prefix };
        var c = sc.compounds[0];
        if (!quoted && c !== undefined && tokenize(c).length === toks.length) unit.compound = c;
        units.push(unit);
      } else units.push({ term: toks[0], prefix: prefix });
    }
    if (units.length && !/[\s"*]$/.test(query)) units[units.length - 1].prefix = true;
    return units;
  }

  // decode reads a posting list: per document the delta of its id, its
  // flags (role | kinds << 2) and the count of occurrences; and, given the
  // term's positions, per document the deltas of the first min(count,
  // maxPos).
  function decode(ints, positions, maxPos) {
    var docs = new Map();
    var doc = 0;
    var k = 0;
    for (var i = 0; i < ints.length; i += 3) {
      doc += ints[i];
      var d = { flags: ints[i + 1], tf: ints[i + 2], pos: [] };
      if (positions) {
        var p = 0;
        for (var j = Math.min(d.tf, maxPos); j > 0; j--) {
          p += positions[k++];
          d.pos.push(p);
        }
      }
      docs.set(doc, d);
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
    this.files = new Map();
  }

  Searcher.prototype.load = function () {
    var self = this;
    if (!this.ready) {
      this.ready = this.fetchJSON(this.base + "meta.json").then(function (meta) {
        if (meta.version !== 6) throw new Error("unknown search index version " + meta.version);
        self.meta = meta;
        return self.fetchJSON(self.base + meta.sessions);
      }).then(function (table) {
        // Rows are [project, agent, models, day, first document], the
        // day and the first document as deltas from the row before: add
        // them up. Titles and pages come with the excerpts.
        var day = 0;
        var doc = 0;
        table.sessions.forEach(function (r) {
          r[3] = day += r[3];
          r[4] = doc += r[4];
        });
        self.table = table;
        return self;
      });
    }
    return this.ready;
  };

  // file fetches a file of the index once: dir is "t" (terms and postings),
  // "q" (their positions, of meta.posGroup shards a file), "f" (excerpts)
  // or "r" (the rest of the long ones).
  Searcher.prototype.file = function (dir, i) {
    var key = dir + i;
    var f = this.files.get(key);
    if (!f) {
      var files = this.files;
      f = this.fetchJSON(this.base + dir + "/" + i + ".json?v=" + this.meta.build);
      f.catch(function () { files.delete(key); }); // a failed fetch is tried again next time
      files.set(key, f);
    }
    return f;
  };

  var maxPrefixTerms = 100; // terms a prefix matches: for a one-letter prefix, enough

  // postings returns, for a term (or every term with the prefix), the map of
  // document → {flags, tf, pos}, with positions only if withPos; for a
  // prefix, the terms matched too (the first maxPrefixTerms in order). The
  // meta file lists where each shard starts: a term is in the last shard
  // that starts at or before it, and a prefix's terms may run on into the
  // next shards. A shard between two that start with the prefix holds
  // nothing else, so the shards after the first are loaded a wave at a
  // time until the prefix has its terms: the first wave is the term's
  // shard and the next, and most prefixes need no other (a common word's
  // postings can fill a shard, and those of its longer forms the next).
  Searcher.prototype.postings = function (term, prefix, withPos) {
    var starts = this.meta.shards;
    var maxPos = this.meta.maxPos;
    var g = this.meta.posGroup;
    var first = lowerBound(starts, term, function (s) { return s; });
    if (first === starts.length || starts[first] !== term) first--;
    first = Math.max(0, first);
    var last = first;
    while (prefix && last + 1 < starts.length && starts[last + 1].startsWith(term)) last++;
    var self = this;
    var out = new Map();
    var terms = [];
    function read(files) {
      var sh = files[0];
      var k = lowerBound(sh.t, term, function (t) { return t; });
      for (; k < sh.t.length; k++) {
        var t = sh.t[k];
        if (t !== term && !(prefix && t.startsWith(term))) break;
        if (terms.length >= maxPrefixTerms) break;
        terms.push(t);
        decode(sh.p[k], files[1] && files[1][k], maxPos).forEach(function (v, doc) {
          var have = out.get(doc);
          if (!have) out.set(doc, { flags: v.flags, tf: v.tf, pos: v.pos, terms: [t] });
          else {
            have.tf += v.tf;
            have.pos = have.pos.concat(v.pos);
            have.terms.push(t);
          }
        });
      }
    }
    function wave(from, to) {
      var refs = [];
      for (var r = from; r <= to; r++) refs.push(r);
      return Promise.all(refs.map(function (r) {
        return Promise.all([self.file("t", r), withPos ? self.file("q", Math.floor(r / g)).then(function (q) { return q[r % g]; }) : null]);
      })).then(function (loaded) {
        loaded.forEach(read);
        if (to < last && terms.length < maxPrefixTerms) return wave(to + 1, to + 1);
        return { docs: out, terms: terms };
      });
    }
    return wave(first, Math.min(first + 1, last));
  };

  // unitDocs returns the documents that match a unit, with the positions
  // of a phrase's matches and the terms to highlight. A compound found in
  // the index needs no positions; one that is not (a middle part of a
  // path) is matched as a phrase.
  Searcher.prototype.unitDocs = function (u) {
    if (u.term !== undefined) return this.postings(u.term, u.prefix, false);
    var self = this;
    if (u.compound === undefined) return this.phraseDocs(u);
    return this.postings(u.compound, u.prefix, false).then(function (found) {
      return found.docs.size ? { docs: found.docs, terms: u.phrase } : self.phraseDocs(u);
    });
  };

  Searcher.prototype.phraseDocs = function (u) {
    var self = this;
    var last = u.phrase.length - 1;
    return Promise.all(u.phrase.map(function (t, i) {
      return self.postings(t, u.prefix && i === last, true);
    })).then(function (lists) {
      var out = new Map();
      lists[0].docs.forEach(function (first, doc) {
        var starts = first.pos.filter(function (p) {
          return lists.every(function (l, i) {
            var d = l.docs.get(doc);
            return d && d.pos.indexOf(p + i) >= 0;
          });
        });
        if (starts.length) out.set(doc, { flags: first.flags, tf: starts.length, pos: starts, terms: [] });
      });
      var terms = [];
      lists.forEach(function (l) { terms = terms.concat(l.terms); });
      return { docs: out, terms: terms };
    });
  };

  // session returns the index of the session a document belongs to.
  Searcher.prototype.session = function (doc) {
    var rows = this.table.sessions;
    return lowerBound(rows, doc + 1, function (r) { return r[4]; }) - 1;
  };

  // search returns the sessions that match, best first, each with all its
  // matching documents, best first. filters: {project, agent, model, role,
  // kind, from, to} (strings as in the form; from and to as days since
  // 1970).
  Searcher.prototype.search = function (query, filters, limit) {
    var self = this;
    filters = filters || {};
    limit = limit || 20;
    var units = parse(query);
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
      if (f.project && table.projects[row[0]] !== f.project) return;
      if (f.agent && table.agents[row[1]] !== f.agent) return;
      if (f.model && !row[2].some(function (m) { return table.models[m] === f.model; })) return;
      if (f.from && row[3] < f.from) return;
      if (f.to && row[3] > f.to) return;
      var score = 0;
      found.forEach(function (u) {
        var tf = u.docs.get(doc).tf;
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
      return b.score - a.score || table.sessions[b.session][3] - table.sessions[a.session][3] || a.session - b.session;
    });
    var terms = [];
    found.forEach(function (u) { terms = terms.concat(u.terms); });
    sessions = sessions.slice(0, limit).map(function (s) {
      s.docs.sort(function (a, b) { return b.score - a.score || a.doc - b.doc; });
      var row = table.sessions[s.session];
      return {
        session: s.session, project: table.projects[row[0]], agent: table.agents[row[1]],
        models: row[2].map(function (m) { return table.models[m]; }), day: row[3],
        docs: s.docs.map(function (d) { return d.doc; }),
      };
    });
    return { sessions: sessions, total: total, matchedSessions: bySession.size, terms: terms };
  };

  // excerpt returns a document as [n, role, text, page of its session,
  // title of its session, whether the text goes on], from its block: {"s": [[page, title], …],
  // "r": [[n, role, text, session in s, file of its rest], …]}. Given
  // the terms a query matched, the text is one a match is in: a block
  // holds the start of each excerpt, and the text of one that goes on
  // goes on in a file of rests, r/<file>.json ({"document": rest, …}),
  // loaded only when no word of the start matches (a tool-use id and a
  // link's address are found, not shown).
  Searcher.prototype.excerpt = function (doc, terms) {
    var self = this;
    var size = this.meta.block;
    var b = Math.floor(doc / size);
    return this.file("f", b).then(function (block) {
      var r = block.r[doc - b * size];
      if (!r) return r;
      var s = block.s[r[3]];
      var row = [r[0], r[1], r[2], s[0], s[1], r.length > 4];
      if (r.length < 5 || !terms || marks(r[2], terms).first >= 0) return row;
      return self.file("r", r[4]).then(function (rests) {
        row[2] += rests[doc] || "";
        row[5] = false;
        return row;
      });
    });
  };

  // hasExcerpt says whether the block of a document's excerpt is loaded
  // or being loaded.
  Searcher.prototype.hasExcerpt = function (doc) {
    return this.files.has("f" + Math.floor(doc / this.meta.block));
  };

  // marks splits text into words and what lies between them, marking the
  // words whose terms were matched: {pieces: [{text, mark, at}], first:
  // where the first marked word starts, or -1}.
  function marks(text, terms) {
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
    return { pieces: pieces, first: first };
  }

  // highlight splits text into pieces, marking the words whose terms were
  // matched, around the first match: [{text, mark}]. A cut is shown as
  // "…", and so is the end of a text that goes on (more).
  function highlight(text, terms, width, more) {
    width = width || 240;
    var m = marks(text, terms);
    var start = Math.max(0, (m.first < 0 ? 0 : m.first) - width / 3);
    var end = start + width;
    var out = [];
    m.pieces.forEach(function (p) {
      if (p.at + p.text.length < start || p.at > end) return;
      out.push({ text: p.text, mark: p.mark });
    });
    if (start > 0) out.unshift({ text: "…", mark: false });
    if (end < text.length || more) out.push({ text: "…", mark: false });
    return out;
  }

  var api = { scan: scan, tokenize: tokenize, parse: parse, decode: decode, Searcher: Searcher, highlight: highlight };
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

  function plural(n, noun) {
    return n + " " + noun + (n === 1 ? "" : "s");
  }

  function day(d) {
    return d ? new Date(d * 86400000).toISOString().slice(0, 10) : "";
  }

  function pageURL(path) {
    return siteRoot + path + (portable ? "index.html" : "");
  }

  var fields = ["project", "agent", "model", "role", "kind", "from", "to"];

  function filters() {
    var f = {};
    ["project", "agent", "model", "role", "kind"].forEach(function (k) { f[k] = form.elements[k].value; });
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
    fields.forEach(function (k) {
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

  var shown = 3; // a session's hits shown before "N more in this session"

  // A result's title, page and excerpts are in the blocks of its hits
  // (f/), loaded when the result comes near the viewport, as Pagefind's UI
  // loads its results a few at a time: a first query downloads the blocks
  // of the results a reader sees, not of every result. Those in view and
  // within nearPx of it are loaded at once, and the status says how many
  // match when they are shown; the others as scrolling brings them near.
  // Each result says where it is in data-state: "far" (waiting to come
  // near), "loading" or "shown".
  var nearPx = 300; // loaded before they are scrolled to
  var waiting = new WeakMap(); // result → what fills it
  var near = typeof IntersectionObserver === "function" ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      var fill = waiting.get(e.target);
      if (fill && e.isIntersecting) fill();
    });
  }, { rootMargin: nearPx + "px 0px" }) : null;

  function isNear(e) {
    var r = e.getBoundingClientRect();
    return r.bottom > -nearPx && r.top < window.innerHeight + nearPx;
  }

  // hit shows one matching message: its number, role and the excerpt
  // around the first match, each matched word marked. Until its block
  // is loaded it holds two lines of space, as most excerpts take, so
  // that the results in view are counted on about the room they will
  // take, and the page moves little as they are filled.
  function hit(hits, doc, terms, mine, onRow) {
    var li = el("li", "search-hit");
    var wait = el("span", "search-hit-waiting", "\u00a0");
    wait.appendChild(document.createElement("br"));
    wait.appendChild(document.createTextNode("\u00a0"));
    li.appendChild(wait);
    hits.appendChild(li);
    return { li: li, load: function () {
      return searcher.excerpt(doc, terms).then(function (row) {
        if (mine !== seq || !row) return;
        onRow(row);
        var link = el("a", "search-hit-link");
        // Document 0 is the session's title and models: it links to the top.
        link.href = pageURL(row[3]) + (row[0] ? "#m-" + row[0] : "");
        link.appendChild(el("span", "search-hit-role", row[0] ? "#" + row[0] + " " + roles[row[1]] : "session"));
        var text = el("span", "search-hit-text");
        highlight(row[2], terms, 0, row[5]).forEach(function (p) {
          text.appendChild(p.mark ? el("mark", "", p.text) : document.createTextNode(p.text));
        });
        link.appendChild(text);
        li.replaceChildren(link);
      });
    } };
  }

  function run(keepLimit) {
    if (!keepLimit) limit = 10;
    var mine = ++seq;
    var q = input.value;
    syncURL();
    if (!q.trim()) {
      if (near) near.disconnect();
      list.replaceChildren();
      list.removeAttribute("aria-busy");
      status.textContent = "";
      more.hidden = true;
      return;
    }
    // Busy until this query's status is shown: until then the status and
    // the results may still be an earlier query's.
    list.setAttribute("aria-busy", "true");
    var t0 = performance.now();
    searcher.search(q, filters(), limit).then(function (res) {
      if (mine !== seq) return;
      var ms = Math.round(performance.now() - t0);
      if (near) near.disconnect();
      list.replaceChildren();
      more.hidden = res.matchedSessions <= res.sessions.length;
      var results = res.sessions.map(function (s) {
        var li = el("li", "search-result");
        li.dataset.state = "far";
        li.setAttribute("aria-busy", "true");
        var h = el("h2", "search-result-title");
        var a = el("a", "", "\u00a0"); // the title comes with the first excerpt
        h.appendChild(a);
        li.appendChild(h);
        li.appendChild(el("p", "meta", [s.project, s.agent, s.models.join(", "), day(s.day)].filter(Boolean).join(" · ")));
        var hits = el("ul", "search-hits");
        li.appendChild(hits);
        list.appendChild(li);
        var titled = false;
        var onRow = function (row) {
          if (titled) return;
          titled = true;
          a.href = pageURL(row[3]);
          a.textContent = row[4];
        };
        var first = s.docs.slice(0, shown).map(function (doc) {
          return hit(hits, doc, res.terms, mine, onRow);
        });
        var fill = function () {
          waiting.delete(li);
          if (near) near.unobserve(li);
          li.dataset.state = "loading";
          return Promise.all(first.map(function (h) { return h.load(); })).then(function () {
            if (mine !== seq) return;
            li.dataset.state = "shown";
            li.removeAttribute("aria-busy");
          });
        };
        var rest = s.docs.slice(shown);
        if (rest.length) {
          var all = el("button", "search-more-hits", rest.length + " more in this session");
          all.type = "button";
          all.addEventListener("click", function () {
            all.remove();
            rest.forEach(function (doc) {
              hit(hits, doc, res.terms, mine, onRow).load();
            });
          });
          li.appendChild(all);
        }
        return { li: li, fill: fill, loaded: s.docs.slice(0, shown).every(function (doc) { return searcher.hasExcerpt(doc); }) };
      });
      // Those near the view now, and those whose blocks are loaded already
      // (shown before "More results" asked for ten more, which keeps
      // their height: the page does not move), are filled at once.
      var now = results.filter(function (r) {
        if (!near || r.loaded || isNear(r.li)) return true;
        waiting.set(r.li, r.fill);
        near.observe(r.li);
        return false;
      });
      return Promise.all(now.map(function (r) { return r.fill(); })).then(function () {
        if (mine !== seq) return;
        list.removeAttribute("aria-busy");
        status.textContent = res.total
          ? plural(res.total, "matching message") + " in " + plural(res.matchedSessions, "session") + " (" + ms + " ms)"
          : "No messages match.";
      });
    }).catch(function (err) {
      if (mine === seq) list.removeAttribute("aria-busy");
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
  form.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { run(false); }, 120);
  });
  searcher.load().then(function () {
    var t = searcher.table;
    fillSelect("project", t.projects);
    fillSelect("agent", t.agents);
    fillSelect("model", t.models);
    fillSelect("kind", t.kinds);
    var params = new URLSearchParams(location.search);
    // What was typed while the index loaded stays, and is searched for.
    if (!input.value) input.value = params.get("q") || "";
    fields.forEach(function (k) {
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
