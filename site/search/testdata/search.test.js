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

test("tokenize agrees with the Go indexer", () => {
  const cases = JSON.parse(fs.readFileSync(path.join(dir, "tokens.json"), "utf8"));
  for (const [text, want] of cases) assert.deepStrictEqual(search.tokenize(text), want, text);
});

test("parse", () => {
  assert.deepStrictEqual(search.parse('fix "token bucket" src/app.go err*', true), [
    { term: "fix", prefix: false },
    { phrase: ["token", "bucket"], prefix: false },
    { phrase: ["src", "app", "go"], prefix: false },
    { term: "err", prefix: true },
  ]);
  assert.deepStrictEqual(search.parse("refac", true), [{ term: "refac", prefix: true }]);
  assert.deepStrictEqual(search.parse("refac ", true), [{ term: "refac", prefix: false }]);
  assert.deepStrictEqual(search.parse("refac", false), [{ term: "refac", prefix: false }], "a deep link is exact");
});

async function run(q, filters) {
  const s = new search.Searcher("", fetchJSON);
  const res = await s.search(q, filters || {}, 20, true);
  return { res, s };
}

test("terms are ANDed and results grouped by session", async () => {
  const { res } = await run("cache hit ");
  assert.strictEqual(res.sessions.length, 1);
  assert.strictEqual(res.sessions[0].title, "Fix the cache");
});

test("phrases need adjacent terms", async () => {
  assert.strictEqual((await run('"cache never hit"')).res.total, 1);
  assert.strictEqual((await run('"hit never cache"')).res.total, 0);
});

test("prefixes and exact identifiers", async () => {
  assert.strictEqual((await run("toolu_01 ")).res.total, 0, "a partial id does not match as a term");
  assert.strictEqual((await run("toolu_01XYZ ")).res.total, 1);
  assert.strictEqual((await run("toolu_01X")).res.total, 1, "the last word is a prefix while typing");
  assert.strictEqual((await run("internal/api/client.go ")).res.total, 1);
  assert.strictEqual((await run("E0382 ")).res.sessions[0].title, "Borrow checker");
});

test("filters", async () => {
  assert.strictEqual((await run("cache ", { role: "0" })).res.total, 1);
  assert.strictEqual((await run("cache ", { role: "1" })).res.total, 1);
  assert.strictEqual((await run("cache ", { kind: "shell" })).res.total, 0);
  assert.strictEqual((await run("cargo ", { kind: "shell" })).res.total, 1);
  assert.strictEqual((await run("cache ", { project: "rustlings" })).res.total, 0);
  assert.strictEqual((await run("cargo ", { agent: "Codex CLI" })).res.total, 1);
  assert.strictEqual((await run("cache ", { from: 20000 })).res.total, 2);
  assert.strictEqual((await run("cache ", { to: 19000 })).res.total, 0);
});

test("a query downloads only the shards of its terms", async () => {
  fetched.length = 0;
  const { res, s } = await run("borrow ");
  const shards = fetched.filter((u) => u.startsWith("t/"));
  assert.strictEqual(shards.length, 1, fetched.join(" "));
  assert.strictEqual(await s.path(res.sessions[0].session), "sessions/rustlings/b/");
  const row = await s.excerpt(res.sessions[0].docs[0]);
  assert.strictEqual(row[1], 0);
  assert.match(row[2], /borrow of moved value/);
  assert.ok(fetched.some((u) => u.startsWith("f/")));
});

test("highlight marks matched words around the first match", () => {
  const parts = search.highlight("a long line before the cache never hit at all", ["cache", "hit"], 30);
  assert.deepStrictEqual(parts.filter((p) => p.mark).map((p) => p.text), ["cache", "hit"]);
});
