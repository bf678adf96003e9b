// Tests of the search client's core, run by TestClient with Node's test
// runner on an index the Go test built in $SEARCH_INDEX.
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const search = require(path.resolve(__dirname, "../../../assets/js/search.js"));

const dir = process.env.SEARCH_INDEX;
const fetched = [];
const fetchJSON = (url) => {
  fetched.push(url);
  return Promise.resolve(JSON.parse(fs.readFileSync(path.join(dir, url.replace(/\?.*/, "")), "utf8")));
};

test("scan agrees with the Go indexer", () => {
  const cases = JSON.parse(fs.readFileSync(path.join(dir, "tokens.json"), "utf8"));
  for (const [text, words, compounds] of cases) {
    assert.deepStrictEqual(search.scan(text), { words, compounds }, text);
  }
});

test("parse", () => {
  assert.deepStrictEqual(search.parse('fix "token bucket" src/app.go err*'), [
    { term: "fix", prefix: false },
    { phrase: ["token", "bucket"], prefix: false },
    { phrase: ["src", "app", "go"], compound: "src/app.go", prefix: false },
    { term: "err", prefix: true },
  ]);
  assert.deepStrictEqual(search.parse("refac"), [{ term: "refac", prefix: true }], "typed or linked, the last word is a prefix");
  assert.deepStrictEqual(search.parse("refac "), [{ term: "refac", prefix: false }]);
  assert.deepStrictEqual(search.parse("main.go:12 "), [{ phrase: ["main", "go", "12"], prefix: false }],
    "a word that is more than its compound is a phrase");
});

async function run(q, filters) {
  const s = new search.Searcher("", fetchJSON);
  const res = await s.search(q, filters || {}, 20);
  return { res, s };
}

// title returns the title of the first result, which comes with its
// excerpts, not with the table of sessions.
async function title(q) {
  const { res, s } = await run(q);
  return (await s.excerpt(res.sessions[0].docs[0]))[4];
}

test("terms are ANDed and results grouped by session", async () => {
  const { res } = await run("cache hit ");
  assert.strictEqual(res.sessions.length, 1);
  assert.strictEqual(await title("cache hit "), "Fix the cache");
});

test("phrases need adjacent terms", async () => {
  assert.strictEqual((await run('"cache never hit"')).res.total, 1);
  assert.strictEqual((await run('"hit never cache"')).res.total, 0);
});

test("prefixes and exact identifiers", async () => {
  assert.strictEqual((await run("toolu_01 ")).res.total, 0, "a partial id does not match as a term");
  assert.strictEqual((await run("toolu_01XYZ ")).res.total, 1);
  assert.strictEqual((await run("toolu_01X")).res.total, 1, "the last word is a prefix");
  assert.strictEqual((await run("internal/api/client.go ")).res.total, 1);
  assert.strictEqual(await title("E0382 "), "Borrow checker");
});

test("paths are found whole, by their last parts, by a prefix, and by a middle part", async () => {
  for (const q of ["internal/api/client.go ", "api/client.go ", "client.go ", "api/cli", "internal/api "]) {
    const { res } = await run(q);
    assert.strictEqual(res.total, 1, q);
    assert.deepStrictEqual(await title(q), "Fix the cache", q);
  }
  assert.strictEqual((await run("api/client.rs ")).res.total, 0);
  fetched.length = 0;
  await run("api/client.go ");
  assert.ok(!fetched.some((u) => u.startsWith("q/")), "a compound needs no positions: " + fetched.join(" "));
  fetched.length = 0;
  await run("internal/api ");
  assert.ok(fetched.some((u) => u.startsWith("q/")), "a middle part is a phrase: " + fetched.join(" "));
});

test("filters", async () => {
  assert.strictEqual((await run("cache ", { role: "0" })).res.total, 1);
  assert.strictEqual((await run("cache ", { role: "1" })).res.total, 1);
  assert.strictEqual((await run("cache ", { kind: "shell" })).res.total, 0);
  assert.strictEqual((await run("cargo ", { kind: "shell" })).res.total, 1);
  assert.strictEqual((await run("cache ", { project: "rustlings" })).res.total, 0);
  assert.strictEqual((await run("cargo ", { agent: "Codex CLI" })).res.total, 1);
  assert.strictEqual((await run("cache ", { model: "claude-sonnet-4-5" })).res.total, 2);
  assert.strictEqual((await run("cache ", { model: "gpt-5" })).res.total, 0);
  assert.strictEqual((await run("cache ", { from: 20000 })).res.total, 2);
  assert.strictEqual((await run("cache ", { to: 19000 })).res.total, 0);
});

test("a query downloads only the shards of its terms", async () => {
  fetched.length = 0;
  const { res, s } = await run("borrow ");
  const shards = fetched.filter((u) => u.startsWith("t/"));
  assert.strictEqual(shards.length, 1, fetched.join(" "));
  assert.ok(!fetched.some((u) => u.startsWith("q/")), "plain words need no positions");
  assert.ok(!fetched.some((u) => u.startsWith("f/")), "excerpts are loaded for the results shown, not by the query");
  assert.strictEqual(s.hasExcerpt(res.sessions[0].docs[0]), false);
  const row = await s.excerpt(res.sessions[0].docs[0]);
  assert.strictEqual(s.hasExcerpt(res.sessions[0].docs[0]), true);
  assert.strictEqual(row[1], 0);
  assert.match(row[2], /borrow of moved value/);
  assert.strictEqual(row[3], "sessions/rustlings/b/");
  assert.strictEqual(row[4], "Borrow checker", "a row carries its session's title");
  assert.ok(fetched.some((u) => u.startsWith("f/")));
});

test("the table of sessions holds no titles or pages", () => {
  const meta = JSON.parse(fs.readFileSync(path.join(dir, "meta.json"), "utf8"));
  const table = JSON.parse(fs.readFileSync(path.join(dir, meta.sessions), "utf8"));
  for (const row of table.sessions) {
    assert.strictEqual(row.length, 5, JSON.stringify(row));
    assert.ok(!row.some((v) => typeof v === "string"), JSON.stringify(row));
  }
});

test("a prefix loads the shards of its first hundred terms, no more", async () => {
  const s = new search.Searcher("", fetchJSON);
  await s.load();
  const spanned = s.meta.shards.filter((st) => st.startsWith("zfill")).length;
  assert.ok(spanned >= 2, "the filler's terms span shards: " + s.meta.shards.join(" "));
  fetched.length = 0;
  const found = await s.postings("zfill", true, false);
  const shards = fetched.filter((u) => u.startsWith("t/"));
  assert.strictEqual(shards.length, 2, "the term's shard and the next: " + shards.join(" "));
  assert.strictEqual(found.terms.length, 100);
  const all = [];
  for (let i = 0; i < s.meta.shards.length; i++) all.push(...(await s.file("t", i)).t.filter((t) => t.startsWith("zfill")));
  assert.deepStrictEqual(found.terms, all.slice(0, 100), "the first hundred in order, as when every shard was loaded");
  const fresh = new search.Searcher("", fetchJSON);
  await fresh.load();
  fetched.length = 0;
  const one = await fresh.postings("zfill00042", true, false);
  assert.deepStrictEqual(one.terms, ["zfill00042"]);
  assert.strictEqual(fetched.filter((u) => u.startsWith("t/")).length, 1, "a prefix within a shard loads one");
});

test("a result shows a match past the start of its excerpt, loading the rest only then", async () => {
  fetched.length = 0;
  const { res, s } = await run("flakyretry ");
  const doc = res.sessions[0].docs[0];
  const start = await s.excerpt(doc);
  assert.ok(!start[2].includes("flakyretry") && start[2].length <= 1000, "a block holds the start");
  assert.ok(!fetched.some((u) => u.startsWith("r/")));
  const row = await s.excerpt(doc, res.terms);
  assert.ok(row[2].startsWith(start[2]), "the rest follows the start");
  const parts = search.highlight(row[2], res.terms);
  assert.deepStrictEqual(parts.filter((p) => p.mark).map((p) => p.text), ["flakyretry"]);
  assert.strictEqual(parts[0].text, "…", "cut around the match");
  assert.ok(fetched.some((u) => u.startsWith("r/")));
  const near = await run("lorem ");
  fetched.length = 0;
  const head = await near.s.excerpt(near.res.sessions[0].docs[0], near.res.terms);
  assert.ok(!fetched.some((u) => u.startsWith("r/")), "a match in the start needs no rest: " + fetched.join(" "));
  assert.ok(head[2].length <= 1000);
  assert.strictEqual(head[5], true, "its text goes on");
  const shown = search.highlight(head[2], near.res.terms, 2000, head[5]);
  assert.strictEqual(shown[shown.length - 1].text, "…", "the end of a start that goes on is marked as a cut");
  assert.strictEqual(row[5], false, "a whole excerpt does not go on");
});

test("highlight marks matched words around the first match", () => {
  const parts = search.highlight("a long line before the cache never hit at all", ["cache", "hit"], 30);
  assert.deepStrictEqual(parts.filter((p) => p.mark).map((p) => p.text), ["cache", "hit"]);
});
