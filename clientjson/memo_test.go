package clientjson

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestMemoAnswersAsComputed replays every merge fixture three times
// through one Memo, each time under another path (another repository's
// file): Merge, HooksDisabled and Registered give what the package's
// functions give for that path — an error or a warning names the path of
// the call, not the first caller's — and an unchanged Merge gives back the
// caller's own bytes. The same bytes merged for other wanted rows, another
// Owner or without Retract are different questions.
func TestMemoAnswersAsComputed(t *testing.T) {
	memo := &Memo{}
	for dir, fc := range loadFixtures(t) {
		before, err := os.ReadFile(filepath.Join(dir, "before.json"))
		if err != nil {
			t.Fatal(err)
		}
		want := fc.handlers()
		owner := testOwner(t, fc.Client, want)
		opts := Options{Owner: owner, Retract: fc.Retract}
		for i, repo := range []string{"a", "b", "c"} {
			path := filepath.Join(repo, fc.Path)
			src := bytes.Clone(before)
			res, err := memo.Merge(path, src, fc.Client, want, opts)
			ref, refErr := Merge(path, before, fc.Client, want, opts)
			name := filepath.Base(dir)
			if (err == nil) != (refErr == nil) || err != nil && err.Error() != refErr.Error() {
				t.Fatalf("%s, call %d: Memo.Merge error %v, Merge %v", name, i, err, refErr)
			}
			if !bytes.Equal(res.Out, ref.Out) || !reflect.DeepEqual(res.Changes, ref.Changes) || !reflect.DeepEqual(res.Warnings, ref.Warnings) {
				t.Fatalf("%s, call %d: Memo.Merge %+v, Merge %+v", name, i, res, ref)
			}
			for _, w := range res.Warnings {
				if !strings.Contains(w, path) {
					t.Errorf("%s, call %d: warning %q does not name %s", name, i, w, path)
				}
			}
			if err == nil && bytes.Equal(ref.Out, before) && len(src) > 0 && &res.Out[0] != &src[0] {
				t.Errorf("%s, call %d: an unchanged file is not the caller's own bytes", name, i)
			}
			off, err := memo.HooksDisabled(path, src, fc.Client)
			refOff, refErr := HooksDisabled(path, before, fc.Client)
			if off != refOff || (err == nil) != (refErr == nil) || err != nil && err.Error() != refErr.Error() {
				t.Fatalf("%s, call %d: Memo.HooksDisabled %v %v, HooksDisabled %v %v", name, i, off, err, refOff, refErr)
			}
			found, err := memo.Registered(path, src, fc.Client, owner)
			refFound, refErr := Registered(path, before, fc.Client, owner)
			if !reflect.DeepEqual(found, refFound) || (err == nil) != (refErr == nil) || err != nil && err.Error() != refErr.Error() {
				t.Fatalf("%s, call %d: Memo.Registered %v %v, Registered %v %v", name, i, found, err, refFound, refErr)
			}
		}
	}
	if len(memo.answers) == 0 {
		t.Fatal("the memo kept no answer")
	}

	// One file, four questions: each gets its own answer.
	src := []byte("{}\n")
	row := Handler{NativeEvent: "PreToolUse", Matcher: "Bash", Command: "hookwarden hook claude pre-tool", Timeout: 10}
	other := row
	other.Timeout = 20
	owner := testOwner(t, "claude", []Handler{row})
	for _, q := range []struct {
		want []Handler
		opts Options
	}{
		{[]Handler{row}, Options{Owner: owner}},
		{[]Handler{other}, Options{Owner: owner}},
		{nil, Options{Owner: owner, Retract: true}},
		{[]Handler{row}, Options{Owner: nil}},
	} {
		got, err := memo.Merge("x", src, "claude", q.want, q.opts)
		ref, refErr := Merge("x", src, "claude", q.want, q.opts)
		if err != nil || refErr != nil || !bytes.Equal(got.Out, ref.Out) {
			t.Errorf("Merge(%v, %+v) through the memo: %q %v, want %q %v", q.want, q.opts, got.Out, err, ref.Out, refErr)
		}
	}
}

// TestMemoBounded: past MemoEntries distinct files, answers are still
// given and no more are kept; a nil Memo computes each call.
func TestMemoBounded(t *testing.T) {
	memo := &Memo{}
	for i := range MemoEntries + 10 {
		src := []byte("{\"n\": " + strconv.Itoa(i) + "}\n")
		if off, err := memo.HooksDisabled("f", src, "claude"); err != nil || off {
			t.Fatalf("file %d: %v %v", i, off, err)
		}
	}
	if n := len(memo.answers); n != MemoEntries {
		t.Errorf("kept %d answers, want %d", n, MemoEntries)
	}
	var none *Memo
	if off, err := none.HooksDisabled("f", []byte(`{"disableAllHooks": true}`), "claude"); err != nil || !off {
		t.Errorf("nil Memo: %v %v", off, err)
	}
}
