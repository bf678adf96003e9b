package ingest

import (
	"io"
	"reflect"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/transcriptsite/transcriptsite/transcript"
)

type mapCache map[string][]byte

func (c mapCache) Get(key string) ([]byte, bool)                 { d, ok := c[key]; return d, ok }
func (c mapCache) Put(key string, data []byte)                   { c[key] = data }
func (c mapCache) Open(string) (io.ReadCloser, bool)             { return nil, false }
func (c mapCache) Write(string, func(io.Writer) error) (ok bool) { return false }

// A group's headers come back from the cache as they went in: times with
// their offsets, durations, nil and empty fields alike. Headers JSON
// cannot hold as they are (a title that is not UTF-8) are not cached.
func TestHeadersCachedAsTheyAre(t *testing.T) {
	s := &transcript.Session{ID: "a", Title: "ünïcode", Models: []string{"m"}, Meta: map[string]string{"k": "v"},
		Started:  time.Date(2026, 5, 2, 10, 4, 0, 123, time.FixedZone("", 2*3600)),
		Ended:    time.Date(2026, 5, 2, 9, 4, 0, 0, time.UTC),
		Redacted: map[string]int{"aws": 1}, Skipped: []transcript.Skip{{Kind: "progress", Count: 3, Reason: "r"}}}
	h := s.Header()
	h.Summary.Stats.Active = 90*time.Second + 7
	h.Summary.Stats.ByKind = map[transcript.ToolKind]int{transcript.ShellTool: 2}
	h.Summary.Usage = map[string]transcript.Usage{"m": {Input: 1, Output: 2}}
	c := mapCache{}
	putHeaders(c, []string{"one"}, []*transcript.Header{h})
	data, ok := c.Get(groupKey([]string{"one"}))
	if !ok {
		t.Fatal("the headers were not cached")
	}
	got, err := decodeHeaders(data)
	if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], h) {
		t.Errorf("cached %+v, %+v (%v), want %+v, %+v", got[0].Session, got[0].Summary, err, h.Session, h.Summary)
	}
	bad := &transcript.Session{ID: "b", Title: "\xff\xfe"}
	putHeaders(c, []string{"two"}, []*transcript.Header{bad.Header()})
	if _, ok := c.Get(groupKey([]string{"two"})); ok {
		t.Error("a header whose title is not UTF-8 was cached")
	}
}

// What a file links to comes back from the cache as it went in.
func TestFileLinksCachedAsTheyAre(t *testing.T) {
	for _, fl := range []fileLinks{
		{Reader: 3, Warnings: []Warning{{File: "a/b.jsonl", Line: 7, Msg: "bad line"}}, Links: []string{"s1", "s2"},
			Blobs: []string{"ab12"}, Pieces: []filePiece{{Links: []string{"s1"}, Size: 1 << 40}, {}}},
		{},
	} {
		data, err := jsonv2.Marshal(fl, cacheJSON)
		var back fileLinks
		if err == nil {
			err = jsonv2.Unmarshal(data, &back, cacheJSON)
		}
		if err != nil || !reflect.DeepEqual(back, fl) {
			t.Errorf("%+v came back as %+v (%v)", fl, back, err)
		}
	}
}
