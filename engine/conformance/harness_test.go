package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/hookwarden/hookwarden/internal/testbin"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookwarden/hookwarden/engine/conformance/observed"
	"github.com/hookwarden/hookwarden/protocol/registration"
)

// Environment of the suite (see .ci/run):
//
//	HOOKWARDEN_CLIENTS_DIR   directory with node_modules/.bin/{claude,codex,gemini,opencode}
//	HOOKWARDEN_E2E=require   an absent client or engine verb is a failure, not a skip
//	HOOKWARDEN_E2E_RECORD=1  write testdata/clients/<client>/<version>/*.json and observed.json
//	HOOKWARDEN_E2E_KEEP=1    keep every sandbox (paths are logged)
//	HOOKWARDEN_E2E_DRIFT=1   with RECORD: write observed.json even when a case failed
//	                         (its rows recorded as failed), so scripts/clients-drift
//	                         reports a newer client's drift in the table instead of
//	                         only a failed run
const (
	// hookArg is argv[1] that turns the test binary into the test hook.
	hookArg = "conformance-hook"
	// runTimeout bounds one client run; measured runs take 1.3-15 s.
	runTimeout = 120 * time.Second
	// marker is the file the scripted shell command creates in the repo.
	marker = "hw_marker.txt"
	// blockedPrefix starts every policy refusal (policy.Decision.Reason).
	blockedPrefix = "[BLOCKED BY hookwarden:"
)

// suite is the shared state of one `go test` run of this package.
type suite struct {
	clientsDir string
	require    bool
	record     bool
	keep       bool
	drift      bool
	testBin    string
	repoRoot   string
	sem        chan struct{} // at most 2 clients at once (2 cores)

	buildOnce sync.Once
	binDir    string
	bin       string
	binErr    error

	adoptOnce sync.Once
	adoptOK   bool
	adoptWhy  string

	mu   sync.Mutex
	seen map[string]*rowResult // key client/version/event
}

type rowResult struct {
	client, version, event, native string
	failed                         bool
	checked                        []string
}

var theSuite *suite

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == hookArg {
		os.Exit(testHook(os.Args[2:]))
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hookwarden: conformance: test binary path:", err)
		os.Exit(2)
	}
	wd, _ := os.Getwd()
	theSuite = &suite{
		clientsDir: os.Getenv("HOOKWARDEN_CLIENTS_DIR"),
		require:    os.Getenv("HOOKWARDEN_E2E") == "require",
		record:     os.Getenv("HOOKWARDEN_E2E_RECORD") == "1",
		keep:       os.Getenv("HOOKWARDEN_E2E_KEEP") == "1",
		drift:      os.Getenv("HOOKWARDEN_E2E_DRIFT") == "1",
		testBin:    exe,
		repoRoot:   filepath.Clean(filepath.Join(wd, "..", "..")),
		sem:        make(chan struct{}, 2),
		seen:       map[string]*rowResult{},
	}
	code := m.Run()
	if theSuite.record && (code == 0 || theSuite.drift) {
		if err := theSuite.writeObserved(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	if theSuite.binDir != "" {
		os.RemoveAll(theSuite.binDir)
	}
	os.Exit(code)
}

// unavailable skips the test with reason, or fails it under
// HOOKWARDEN_E2E=require: an absent client or engine verb is never a silent pass.
func (s *suite) unavailable(t *testing.T, reason string) {
	t.Helper()
	if s.require {
		t.Fatalf("HOOKWARDEN_E2E=require: %s", reason)
	}
	t.Skipf("stated skip: %s (HOOKWARDEN_E2E=require makes this a failure)", reason)
}

// client returns the named client and its installed version, or skips/fails.
func (s *suite) client(t *testing.T, name string) (Client, string) {
	t.Helper()
	var c Client
	for _, x := range Clients() {
		if x.Name == name {
			c = x
		}
	}
	if s.clientsDir == "" {
		s.unavailable(t, "HOOKWARDEN_CLIENTS_DIR is not set, so the real "+name+" client cannot be found")
	}
	if _, err := os.Stat(c.Bin(s.clientsDir)); err != nil {
		s.unavailable(t, fmt.Sprintf("%s is not installed under %s: %v", name, s.clientsDir, err))
	}
	v, err := c.Version(s.clientsDir)
	if err != nil {
		s.unavailable(t, err.Error())
	}
	return c, v
}

// hookwarden returns the absolute path of ./cmd/hookwarden built from this
// tree (internal/testbin: once per source state), or skips/fails the test
// when HOOKWARDEN_CONFORMANCE_BIN, which names a prebuilt binary to use
// instead, is not a path.
func (s *suite) hookwarden(t *testing.T) string {
	t.Helper()
	if os.Getenv("HOOKWARDEN_CONFORMANCE_BIN") == "" {
		return testbin.Hookwarden(t)
	}
	s.buildOnce.Do(func() {
		s.bin, s.binErr = filepath.Abs(os.Getenv("HOOKWARDEN_CONFORMANCE_BIN"))
	})
	if s.binErr != nil {
		s.unavailable(t, s.binErr.Error())
	}
	return s.bin
}

// verbBuilt reports whether the built hookwarden has the verb (its stub
// says "not available in this build yet").
func verbBuilt(bin, verb string) (bool, string) {
	out, _ := exec.Command(bin, verb, "--help").CombinedOutput()
	if bytes.Contains(out, []byte("not built yet")) || bytes.Contains(out, []byte("not available in this build yet")) {
		return false, fmt.Sprintf("`hookwarden %s` is not built yet (stub)", verb)
	}
	return true, ""
}

// engineServes probes `hookwarden hook client event` with payload in a
// governed temporary repository and reports whether the engine evaluates the
// event (a stated skip "not evaluated in this build" means it does not yet).
func engineServes(t *testing.T, bin, client, event string, payload map[string]any) (bool, string) {
	t.Helper()
	dir := t.TempDir()
	sb, err := NewSandbox(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := sb.WriteFile("repo/.hookwarden.yaml", []byte("version: 1\n")); err != nil {
		t.Fatal(err)
	}
	payload["cwd"] = sb.Repo
	b, _ := json.Marshal(payload)
	cmd := exec.Command(bin, "hook", client, event)
	cmd.Dir = sb.Repo
	cmd.Env = append(scrubbedEnv(os.Environ()), "HOME="+sb.Home)
	cmd.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	if strings.Contains(stderr.String(), "not available in this build") || strings.Contains(stderr.String(), "not evaluated in this build") {
		return false, fmt.Sprintf("`hookwarden hook %s %s` does not evaluate the event yet: %s", client, event, strings.TrimSpace(stderr.String()))
	}
	return true, ""
}

// sandbox creates a fresh sandbox for one run.
func (s *suite) sandbox(t *testing.T) *Sandbox {
	t.Helper()
	dir := ""
	if s.keep {
		d, err := os.MkdirTemp("", "hw-conf-"+strings.ReplaceAll(t.Name(), "/", "-")+"-")
		if err != nil {
			t.Fatal(err)
		}
		dir = d
		t.Logf("sandbox kept: %s", d)
	} else {
		dir = t.TempDir()
	}
	sb, err := NewSandbox(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// run executes one client turn under the semaphore and returns its result.
func (s *suite) run(t *testing.T, inv Invocation) Result {
	t.Helper()
	s.sem <- struct{}{}
	defer func() { <-s.sem }()
	res, err := Run(context.Background(), inv, runTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: exit %d in %s", filepath.Base(inv.Args[0]), res.ExitCode, res.Elapsed.Round(time.Millisecond))
	if res.TimedOut {
		t.Fatalf("client run timed out after %s\n%s", runTimeout, res.Tail(3000))
	}
	return res
}

// --- hook rows ---------------------------------------------------------------

// hookRow is one handler group in a Claude/Codex/Gemini hooks document.
type hookRow struct {
	Native  string
	Matcher string // "" = none
	Command string
	Timeout float64 // in the client's unit
}

// hooksDoc renders {"hooks":{Native:[{"matcher":M,"hooks":[{"type":"command","command":C,"timeout":T}]}…]}}
// with the groups in the order given, merged into base (may be nil).
func hooksDoc(base map[string]any, rows []hookRow) []byte {
	doc := map[string]any{}
	for k, v := range base {
		doc[k] = v
	}
	hooks := map[string][]any{}
	for _, r := range rows {
		g := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": r.Command, "timeout": r.Timeout}}}
		if r.Matcher != "" {
			g["matcher"] = r.Matcher
		}
		hooks[r.Native] = append(hooks[r.Native], g)
	}
	doc["hooks"] = hooks
	b, _ := json.MarshalIndent(doc, "", "  ")
	return append(b, '\n')
}

// geminiUserBase is the user settings every Gemini run needs
// (../shared/e2e/README.md §3: auth type; no usage statistics).
func geminiUserBase() map[string]any {
	return map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy": map[string]any{"usageStatisticsEnabled": false}}
}

// hookFiles returns the repository hooks file and the user-level hooks file
// of a client, relative to the sandbox root.
func hookFiles(client string) (repo, user string) {
	switch client {
	case "claude":
		return "repo/.claude/settings.json", "home/settings.json"
	case "codex":
		return "repo/.codex/hooks.json", "home/hooks.json"
	case "gemini":
		return "repo/.gemini/settings.json", "home/.gemini/settings.json"
	}
	return "", ""
}

// writeHooks writes the repository and user hook rows of client, and for
// Codex appends the hook-trust records of both files to config.toml.
func writeHooks(t *testing.T, sb *Sandbox, client string, repoRows, userRows []hookRow) {
	t.Helper()
	repoFile, userFile := hookFiles(client)
	if err := sb.WriteFile(repoFile, hooksDoc(nil, repoRows)); err != nil {
		t.Fatal(err)
	}
	var userBase map[string]any
	if client == "gemini" {
		userBase = geminiUserBase()
	}
	if len(userRows) > 0 || userBase != nil {
		if err := sb.WriteFile(userFile, hooksDoc(userBase, userRows)); err != nil {
			t.Fatal(err)
		}
	}
	if client == "codex" {
		trustCodex(t, sb, repoFile)
		if len(userRows) > 0 {
			trustCodex(t, sb, userFile)
		}
	}
}

// trustCodex appends the computed trust records of the hooks file rel to
// $CODEX_HOME/config.toml.
func trustCodex(t *testing.T, sb *Sandbox, rel string) {
	t.Helper()
	recs, err := ComputeCodexTrust(filepath.Join(sb.Root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(sb.Home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(CodexTrustTOML(recs)); err != nil {
		t.Fatal(err)
	}
}

// testHookCommand is the registration command of the test hook: it saves
// its stdin under dir and acts per mode (see testHook).
func (s *suite) testHookCommand(dir, mode string) string {
	return shellQuote(s.testBin) + " " + hookArg + " " + shellQuote(dir) + " " + mode
}

func shellQuote(s string) string {
	if regexp.MustCompile(`^[A-Za-z0-9_./:=@%+-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// --- test hook -----------------------------------------------------------------

// testHook is the test binary acting as a hook: argv OUT_DIR MODE. It saves
// stdin byte for byte to OUT_DIR/<event>.<n>.json (n = 1, 2, … per call;
// event from hook_event_name), then:
//
//	record   exit 0, no output
//	exit2    reason on stderr, exit 2
//	exit1    reason on stderr, exit 1
//	badjson  prints a line that is not JSON on stdout, exit 0
//	sleep    sleeps 8 s, then reason on stderr and exit 2 (a deny that comes too late)
//	stop-once  exit 2 on a call without stop_hook_active, else exit 0
func testHook(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "conformance-hook: usage: OUT_DIR MODE")
		return 2
	}
	out, mode := args[0], args[1]
	raw, _ := readAll(os.Stdin)
	var p map[string]any
	_ = json.Unmarshal(raw, &p)
	event, _ := p["hook_event_name"].(string)
	if event == "" {
		event = "unknown"
	}
	if err := os.MkdirAll(out, 0o755); err == nil {
		for n := 1; ; n++ {
			f, err := os.OpenFile(filepath.Join(out, fmt.Sprintf("%s.%d.json", event, n)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
			if os.IsExist(err) {
				continue
			}
			if err == nil {
				f.Write(raw)
				f.Close()
			}
			break
		}
	}
	reason := "BLOCKED by conformance test hook (" + event + ")"
	switch mode {
	case "exit2":
		fmt.Fprintln(os.Stderr, reason)
		return 2
	case "exit1":
		fmt.Fprintln(os.Stderr, reason)
		return 1
	case "badjson":
		fmt.Println("{this is not json")
		return 0
	case "sleep":
		time.Sleep(8 * time.Second)
		fmt.Fprintln(os.Stderr, reason)
		return 2
	case "stop-once":
		if active, _ := p["stop_hook_active"].(bool); !active {
			fmt.Fprintln(os.Stderr, "conformance stop hook: keep going once")
			return 2
		}
	}
	return 0
}

func readAll(f *os.File) ([]byte, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(f)
	return buf.Bytes(), err
}

// calls returns the payloads saved by test hooks in dir for event, in call
// order.
func calls(t *testing.T, dir, event string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for n := 1; ; n++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s.%d.json", event, n)))
		if err != nil {
			return out
		}
		var p map[string]any
		if err := json.Unmarshal(b, &p); err != nil {
			t.Errorf("%s call %d: payload is not a JSON object: %v", event, n, err)
		}
		out = append(out, p)
	}
}

// toolCommand returns the shell command a pre-tool payload names
// (tool_input.command for Claude, Codex, Gemini; output.args.command for the
// opencode plugin record).
func toolCommand(p map[string]any) string {
	if o := obj(p["output"]); o != nil {
		return str(obj(o["args"])["command"])
	}
	return str(obj(p["tool_input"])["command"])
}

// --- recording ---------------------------------------------------------------

// redactor replaces the run's absolute paths with placeholders, longest
// first: $REPO, $HOME_DIR, $OUT, $WORK, $TEST_HOOK, $HOOKWARDEN, $CLIENTS_DIR,
// and Claude's project slug of the repo path as "-work-repo" (the form the
// engine's earlier copies in testdata/clients use).
func (s *suite) redactor(sb *Sandbox) func(string) string {
	slug := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(sb.Repo, "-")
	pairs := [][2]string{{slug, "-work-repo"}, {sb.Repo, "$REPO"}, {sb.Home, "$HOME_DIR"}, {sb.Out, "$OUT"},
		{sb.Root, "$WORK"}, {s.testBin, "$TEST_HOOK"}}
	if s.bin != "" {
		pairs = append(pairs, [2]string{s.bin, "$HOOKWARDEN"})
	}
	if s.clientsDir != "" {
		if real, err := filepath.EvalSymlinks(s.clientsDir); err == nil {
			pairs = append(pairs, [2]string{real, "$CLIENTS_DIR"})
		}
		pairs = append(pairs, [2]string{s.clientsDir, "$CLIENTS_DIR"})
	}
	sort.SliceStable(pairs, func(i, j int) bool { return len(pairs[i][0]) > len(pairs[j][0]) })
	return func(text string) string {
		for _, p := range pairs {
			text = strings.ReplaceAll(text, p[0], p[1])
		}
		return text
	}
}

// neutralEvent maps a recorded payload to hookwarden's neutral event name
// through the registration table: the client's row whose native event is
// the payload's hook_event_name (opencode: tool.execute.before) and whose
// matcher matches its tool_name (opencode: input.tool; SubagentStart and
// SubagentStop payloads: agent_type). It returns "" when no row matches.
func neutralEvent(client string, p map[string]any) string {
	tbl, err := registration.Default()
	if err != nil {
		return ""
	}
	native, tool := str(p["hook_event_name"]), str(p["tool_name"])
	if in := obj(p["input"]); in != nil && client == "opencode" {
		// opencode's plugin payload names its tool in input.tool and has
		// no tool_name; it must not fall through to agent_type below.
		native, tool = "tool.execute.before", str(in["tool"])
	} else if _, ok := p["tool_name"]; !ok {
		// SubagentStart and SubagentStop match on agent_type.
		tool = str(p["agent_type"])
	}
	for _, row := range tbl.ForClient(client) {
		if !row.HasNative(native) {
			continue
		}
		if row.Matcher == "" {
			return row.Event
		}
		if re, err := regexp.Compile(row.Matcher); err == nil && re.MatchString(tool) {
			return row.Event
		}
	}
	return ""
}

// recordPayloads copies every payload a recorder saved in dir to
// testdata/clients/<client>/<version>/<event>.<scenario>[.<n>].json, where
// event is the neutral event (neutralEvent), with paths replaced by
// placeholders (only with HOOKWARDEN_E2E_RECORD=1). The call number n is
// added only when the event fired more than once in the run.
func (s *suite) recordPayloads(t *testing.T, sb *Sandbox, dir, client, version, scenario string) {
	t.Helper()
	if !s.record {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	re := regexp.MustCompile(`^(.+)\.(\d+)\.json$`)
	type rec struct {
		event string
		raw   []byte
		order string
	}
	var recs []rec
	for _, e := range entries {
		m := re.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		if json.Unmarshal(raw, &p) != nil {
			continue
		}
		ev := neutralEvent(client, p)
		if ev == "" {
			continue
		}
		recs = append(recs, rec{event: ev, raw: raw, order: fmt.Sprintf("%s.%06s", m[1], m[2])})
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].order < recs[j].order })
	count := map[string]int{}
	for _, r := range recs {
		count[r.event]++
	}
	red := s.redactor(sb)
	dest := filepath.Join(s.repoRoot, "testdata", "clients", client, version)
	if err := os.MkdirAll(dest, 0o755); err != nil {
		t.Fatal(err)
	}
	seq := map[string]int{}
	for _, r := range recs {
		seq[r.event]++
		name := r.event + "." + scenario
		if count[r.event] > 1 {
			name += fmt.Sprintf(".%d", seq[r.event])
		}
		if err := os.WriteFile(filepath.Join(dest, name+".json"), []byte(red(string(r.raw))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// observe registers the outcome of a case for (client, version, event) in
// observed.json: a row is observed when every case naming it passed.
func (s *suite) observe(t *testing.T, client, version, event, check string) {
	t.Helper()
	tbl, err := registration.Default()
	if err != nil {
		t.Fatal(err)
	}
	row, ok := tbl.Lookup(client, event)
	if !ok {
		t.Fatalf("observe: %s %s is not a registration row", client, event)
	}
	t.Cleanup(func() {
		if t.Skipped() {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		k := client + "/" + version + "/" + event
		r := s.seen[k]
		if r == nil {
			r = &rowResult{client: client, version: version, event: event, native: row.NativeEvent}
			s.seen[k] = r
		}
		if t.Failed() {
			r.failed = true
			check += " (FAILED)"
		}
		r.checked = append(r.checked, check)
	})
}

// writeObserved merges this run's observations into
// testdata/clients/observed.json and its embedded copy
// engine/conformance/observed/observed.json (same bytes).
func (s *suite) writeObserved() error {
	canon := filepath.Join(s.repoRoot, "testdata", "clients", "observed.json")
	b, err := os.ReadFile(canon)
	f := &observed.File{Version: 1}
	if err == nil {
		if f, err = observed.Parse(b); err != nil {
			return err
		}
	}
	date := time.Now().UTC().Format("2006-01-02")
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.seen {
		keep := f.Entries[:0]
		for _, e := range f.Entries {
			if !(e.Client == r.client && e.Event == r.event && e.ClientVersion == r.version) {
				keep = append(keep, e)
			}
		}
		f.Entries = keep
		status := observed.Observed
		if r.failed {
			status = observed.Failed
		}
		checked := append([]string(nil), r.checked...)
		sort.Strings(checked)
		f.Entries = append(f.Entries, observed.Entry{Client: r.client, ClientVersion: r.version, Event: r.event,
			NativeEvent: r.native, Status: status, Date: date, Checked: checked})
	}
	out, err := f.Marshal()
	if err != nil {
		return err
	}
	for _, p := range []string{canon, filepath.Join(s.repoRoot, "engine", "conformance", "observed", "observed.json")} {
		if err := os.WriteFile(p, out, 0o644); err != nil {
			return fmt.Errorf("hookwarden: conformance: %w", err)
		}
	}
	return nil
}
