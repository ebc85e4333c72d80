// The in-process fake model servers of the real-client suite (see doc.go).

package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// API names one model wire protocol a client speaks.
type API string

const (
	// Anthropic is the Anthropic Messages API (POST /v1/messages, SSE or
	// JSON; POST /v1/messages/count_tokens), spoken by Claude Code 2.1.328.
	Anthropic API = "anthropic"
	// Responses is the OpenAI Responses API (POST /v1/responses, always
	// streamed), spoken by codex-cli 0.169.0 (wire_api = "responses").
	Responses API = "responses"
	// Gemini is the Gemini API (POST /v1beta/models/<m>:streamGenerateContent?alt=sse,
	// :generateContent, :countTokens), spoken by Gemini CLI 0.61.0.
	Gemini API = "gemini"
	// Chat is the OpenAI chat completions API (POST /v1/chat/completions,
	// SSE chunks ending in [DONE]), spoken by opencode 1.18.33 through
	// @ai-sdk/openai-compatible.
	Chat API = "chat"
)

// ToolCall is one call of a named tool with its input, as the scripted
// model sends it.
//
// Unoffered makes the Anthropic server call Name even when the request does
// not offer it (a model calling a tool by a legacy name).
//
// Freeform, when non-empty (Responses only), makes the call a
// custom_tool_call whose input is Freeform itself, as Codex's freeform
// tools take it (apply_patch for the models whose catalog entry sets
// apply_patch_tool_type "freeform", gpt-5.5 in codex-cli 0.169.0's bundled
// catalog); Input is then unused.
type ToolCall struct {
	Name      string
	Input     map[string]any
	Unoffered bool
	Freeform  string
}

// Edit is a file write the scripted model asks for instead of a shell
// command: Path is absolute, Content the whole new file body.
type Edit struct {
	Path    string
	Content string
}

// Script is what the scripted model does. A request gets a tool call when it
// offers the needed tool, its conversation holds no tool result yet, and fewer
// than MaxToolCalls calls were made so far; every other request gets
// FinalText as plain assistant text.
//
// Command is the shell command of the tool call (the "run this shell command,
// then end" scenario). Commands, when set, replaces Command by a sequence:
// the request holding n tool results gets a call of Commands[n], so one run
// can try a denied command and then an allowed one. Edit, when non-nil, replaces the shell call by a file
// write with the client's write tool (the "edit this file" scenario). With
// neither, every request gets FinalText (the "end with this final message"
// scenario, used for stop hooks). MaxToolCalls defaults to 1; FinalText to
// "done".
//
// Call, when non-nil (Anthropic, Gemini, Responses and chat), replaces the shell call by a
// call of the named tool with the given input (the agent-traffic cases:
// Claude Code's Agent tool, Gemini CLI's invoke_agent, Codex's spawn_agent).
type Script struct {
	Call         *ToolCall
	Command      string
	Commands     []string
	Edit         *Edit
	FinalText    string
	MaxToolCalls int
}

// Request is one logged model request: Method and Path (with query) as
// received, Time its arrival, Reply the kind of answer sent ("tool", "text", "json" for Gemini
// side requests that ask for JSON, "count" for token counting, "other"),
// Tool the name of the tool called when Reply is "tool", HasTools whether the
// request offered any tool (main-loop turns do; title and classifier side
// requests do not), and Body the request body as received (decompressed).
type Request struct {
	Method   string
	Path     string
	Reply    string
	Tool     string
	HasTools bool
	Body     []byte
	Time     time.Time
}

// Strings returns every JSON string value in the request body, in document
// order (nil when the body is not JSON). Tests use it to find the deny reason
// or tool result the client forwarded to the model, whatever its escaping.
func (r Request) Strings() []string {
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case string:
			out = append(out, t)
		case []any:
			for _, e := range t {
				walk(e)
			}
		case map[string]any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// Carries reports whether any JSON string in the request body contains text.
func (r Request) Carries(text string) bool {
	for _, s := range r.Strings() {
		if strings.Contains(s, text) {
			return true
		}
	}
	return false
}

// Server is one scripted model server listening on 127.0.0.1. It logs every
// request; it is safe for concurrent use.
type Server struct {
	api    API
	script Script
	srv    *httptest.Server

	mu        sync.Mutex
	toolCalls int
	log       []Request
}

// NewServer starts a scripted model server for api on 127.0.0.1 on a free
// port. The caller must Close it. It returns an error for an unknown api.
func NewServer(api API, script Script) (*Server, error) {
	switch api {
	case Anthropic, Responses, Gemini, Chat:
	default:
		return nil, fmt.Errorf("hookwarden: model server: unknown api %q", api)
	}
	if script.MaxToolCalls == 0 {
		script.MaxToolCalls = max(1, len(script.Commands))
	}
	if script.FinalText == "" {
		script.FinalText = "done"
	}
	s := &Server{api: api, script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s, nil
}

// URL returns the server's base URL, "http://127.0.0.1:<port>", without a
// trailing slash or path.
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server and waits for in-flight requests.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns a copy of the request log in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// MainTurns returns the logged main-loop turns: requests that offered tools
// and were answered with a tool call or text. Side requests (titles, the
// Gemini router classifier) are left out.
func (s *Server) MainTurns() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.HasTools && (r.Reply == "tool" || r.Reply == "text") {
			out = append(out, r)
		}
	}
	return out
}

// toolWanted decides, under the lock, whether this request gets a tool
// call, and with which shell command: the request offers the tool, the call
// budget is not spent, and the conversation holds fewer tool results than
// the script has calls (an edit is one call). command is "" for an edit.
func (s *Server) toolWanted(offered bool, results int) (command string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !offered || s.toolCalls >= s.script.MaxToolCalls {
		return "", false
	}
	if s.script.Edit != nil || s.script.Call != nil {
		if results > 0 {
			return "", false
		}
		s.toolCalls++
		return "", true
	}
	cmds := s.script.Commands
	if len(cmds) == 0 && s.script.Command != "" {
		cmds = []string{s.script.Command}
	}
	if results >= len(cmds) {
		return "", false
	}
	s.toolCalls++
	return cmds[results], true
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	s.log = append(s.log, r)
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 64<<20))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	rec := Request{Method: req.Method, Path: req.URL.RequestURI(), Body: body, Reply: "other", Time: time.Now()}
	defer func() { s.record(rec) }()
	if req.Method == http.MethodGet {
		if strings.HasSuffix(req.URL.Path, "/models") {
			writeJSON(w, map[string]any{"object": "list", "models": []any{},
				"data": []any{map[string]any{"id": "mock-model", "object": "model", "owned_by": "mock"}}})
			return
		}
		http.NotFound(w, req)
		return
	}
	var doc map[string]any
	if len(body) > 0 {
		if err := json.Unmarshal(body, &doc); err != nil {
			http.Error(w, "body is not JSON", http.StatusBadRequest)
			return
		}
	}
	switch s.api {
	case Anthropic:
		s.anthropic(w, req, doc, &rec)
	case Responses:
		s.responses(w, doc, &rec)
	case Gemini:
		s.gemini(w, req, doc, &rec)
	case Chat:
		s.chat(w, doc, &rec)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	_, _ = w.Write(b)
}

// sse writes server-sent events and flushes after each one.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return sse{w: w, f: f}
}

func (e sse) event(name string, v any) {
	b, _ := json.Marshal(v)
	var buf bytes.Buffer
	if name != "" {
		fmt.Fprintf(&buf, "event: %s\n", name)
	}
	fmt.Fprintf(&buf, "data: %s\n\n", b)
	_, _ = e.w.Write(buf.Bytes())
	if e.f != nil {
		e.f.Flush()
	}
}

func (e sse) raw(s string) {
	_, _ = io.WriteString(e.w, s)
	if e.f != nil {
		e.f.Flush()
	}
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func contains(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

// --- Anthropic Messages (Claude Code) ---------------------------------------

// anthropic answers POST /v1/messages. Claude Code's shell tool is "Bash"
// ({command, description}); its file-writing tool is "Write" ({file_path,
// content}) (Claude Code hooks docs, tool names; ../shared/e2e/README.md §1).
func (s *Server) anthropic(w http.ResponseWriter, req *http.Request, doc map[string]any, rec *Request) {
	if strings.Contains(req.URL.Path, "count_tokens") {
		rec.Reply = "count"
		writeJSON(w, map[string]any{"input_tokens": 10})
		return
	}
	results := 0
	for _, m := range list(doc["messages"]) {
		for _, c := range list(obj(m)["content"]) {
			if str(obj(c)["type"]) == "tool_result" {
				results++
			}
		}
	}
	var names []string
	for _, t := range list(doc["tools"]) {
		names = append(names, str(obj(t)["name"]))
	}
	rec.HasTools = len(names) > 0
	tool := "Bash"
	if s.script.Edit != nil {
		tool = "Write"
	}
	if s.script.Call != nil {
		tool = s.script.Call.Name
	}
	n := len(s.Requests())
	var content []map[string]any
	stop := "end_turn"
	offered := contains(names, tool) || s.script.Call != nil && s.script.Call.Unoffered && len(names) > 0 && results == 0
	if command, ok := s.toolWanted(offered, results); ok {
		input := map[string]any{"command": command, "description": "run the requested command"}
		if s.script.Edit != nil {
			input = map[string]any{"file_path": s.script.Edit.Path, "content": s.script.Edit.Content}
		}
		if s.script.Call != nil {
			input = s.script.Call.Input
		}
		rec.Reply, rec.Tool = "tool", tool
		content = []map[string]any{{"type": "tool_use", "id": fmt.Sprintf("toolu_%02d", n), "name": tool, "input": input}}
		stop = "tool_use"
	} else {
		rec.Reply = "text"
		content = []map[string]any{{"type": "text", "text": s.script.FinalText}}
	}
	msg := map[string]any{"id": fmt.Sprintf("msg_%02d", n), "type": "message", "role": "assistant",
		"model": str(doc["model"]), "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}
	if stream, _ := doc["stream"].(bool); !stream {
		msg["content"] = content
		msg["stop_reason"] = stop
		writeJSON(w, msg)
		return
	}
	e := startSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": msg})
	for i, c := range content {
		if c["type"] == "text" {
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": c["text"]}})
		} else {
			in, _ := json.Marshal(c["input"])
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	e.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

// --- OpenAI Responses (Codex) -----------------------------------------------

// codexShellTools lists the shell tools Codex may offer, in order of
// preference: exec_command ({"cmd": str}) is the one codex-cli 0.169.0 offers
// (../shared/e2e/README.md §2, "Wire facts").
func codexShellTools() []string { return []string{"exec_command", "shell_command", "shell"} }

func codexArgs(tool, command string) map[string]any {
	switch tool {
	case "exec_command":
		return map[string]any{"cmd": command}
	case "shell_command":
		return map[string]any{"command": command}
	}
	return map[string]any{"command": []string{"bash", "-lc", command}}
}

// responses answers POST /v1/responses with the stream events
// response.created, response.output_item.added, (response.output_text.delta),
// response.output_item.done and response.completed.
func (s *Server) responses(w http.ResponseWriter, doc map[string]any, rec *Request) {
	results := 0
	for _, it := range list(doc["input"]) {
		switch str(obj(it)["type"]) {
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			results++
		}
	}
	var names []string
	namespace := map[string]string{} // tool name -> its namespace
	for _, t := range list(doc["tools"]) {
		n := str(obj(t)["name"])
		if n == "" {
			n = str(obj(obj(t)["function"])["name"])
		}
		names = append(names, n)
		if str(obj(t)["type"]) == "namespace" {
			// Codex 0.169.0 offers its multi-agent tools in a namespace
			// (multi_agent_v1: spawn_agent, send_input, …).
			for _, in := range list(obj(t)["tools"]) {
				names = append(names, str(obj(in)["name"]))
				namespace[str(obj(in)["name"])] = n
			}
		}
	}
	rec.HasTools = len(names) > 0
	tool := ""
	for _, c := range codexShellTools() {
		if contains(names, c) {
			tool = c
			break
		}
	}
	if s.script.Call != nil {
		tool = ""
		if contains(names, s.script.Call.Name) {
			tool = s.script.Call.Name
		}
	}
	n := len(s.Requests())
	var item map[string]any
	command, ok := "", false
	if s.script.Edit == nil {
		command, ok = s.toolWanted(tool != "", results)
	}
	if ok {
		rec.Reply, rec.Tool = "tool", tool
		args, _ := json.Marshal(codexArgs(tool, command))
		if s.script.Call != nil {
			args, _ = json.Marshal(s.script.Call.Input)
		}
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%02d", n), "call_id": fmt.Sprintf("call_%02d", n),
			"name": tool, "arguments": string(args), "status": "completed"}
		if s.script.Call != nil && s.script.Call.Freeform != "" {
			item = map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%02d", n), "call_id": fmt.Sprintf("call_%02d", n),
				"name": tool, "input": s.script.Call.Freeform, "status": "completed"}
		}
		if ns := namespace[tool]; ns != "" {
			item["namespace"] = ns
		}
	} else {
		rec.Reply = "text"
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_%02d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": s.script.FinalText, "annotations": []any{}}}}
	}
	base := map[string]any{"id": fmt.Sprintf("resp_%02d", n), "object": "response", "created_at": time.Now().Unix(),
		"status": "in_progress", "model": str(doc["model"]), "output": []any{}}
	e := startSSE(w)
	e.event("response.created", map[string]any{"type": "response.created", "sequence_number": 0, "response": base})
	e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": item})
	if rec.Reply == "text" {
		e.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "sequence_number": 2,
			"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": s.script.FinalText})
	}
	e.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "sequence_number": 3, "output_index": 0, "item": item})
	done := map[string]any{}
	for k, v := range base {
		done[k] = v
	}
	done["status"] = "completed"
	done["output"] = []any{item}
	done["usage"] = map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}
	e.event("response.completed", map[string]any{"type": "response.completed", "sequence_number": 4, "response": done})
}

// --- Gemini API (Gemini CLI) ------------------------------------------------

// gemini answers the Gemini API. The shell tool is run_shell_command
// ({command, description}); the file-writing tool is write_file ({file_path,
// content}) (Gemini CLI 0.61.0 bundle: WRITE_FILE_TOOL_NAME = "write_file",
// args file_path/content). Requests with generationConfig.responseMimeType
// "application/json" (the model router's classifier) get JSON built from
// their schema: a plain-text answer makes Gemini CLI retry with backoff for
// about 80 s (../shared/e2e/README.md §3 and mock_llm.py).
func (s *Server) gemini(w http.ResponseWriter, req *http.Request, doc map[string]any, rec *Request) {
	path := req.URL.Path
	switch {
	case strings.HasSuffix(path, ":countTokens"):
		rec.Reply = "count"
		writeJSON(w, map[string]any{"totalTokens": 10})
		return
	case strings.HasSuffix(path, ":embedContent"), strings.HasSuffix(path, ":batchEmbedContents"):
		writeJSON(w, map[string]any{"embedding": map[string]any{"values": make([]float64, 8)}})
		return
	}
	results := 0
	for _, c := range list(doc["contents"]) {
		for _, p := range list(obj(c)["parts"]) {
			if _, ok := obj(p)["functionResponse"]; ok {
				results++
			}
		}
	}
	var names []string
	for _, t := range list(doc["tools"]) {
		for _, fd := range list(obj(t)["functionDeclarations"]) {
			names = append(names, str(obj(fd)["name"]))
		}
	}
	rec.HasTools = len(names) > 0
	tool := "run_shell_command"
	if s.script.Edit != nil {
		tool = "write_file"
	}
	if s.script.Call != nil {
		tool = s.script.Call.Name
	}
	gc := obj(doc["generationConfig"])
	var parts []any
	command, isTool := s.toolWanted(contains(names, tool), results)
	switch {
	case isTool:
		rec.Reply, rec.Tool = "tool", tool
		args := map[string]any{"command": command, "description": "run the requested command"}
		if s.script.Edit != nil {
			args = map[string]any{"file_path": s.script.Edit.Path, "content": s.script.Edit.Content}
		}
		if s.script.Call != nil {
			args = s.script.Call.Input
		}
		parts = []any{map[string]any{"functionCall": map[string]any{"name": tool, "args": args}}}
	case str(gc["responseMimeType"]) == "application/json":
		rec.Reply = "json"
		schema := gc["responseJsonSchema"]
		if schema == nil {
			schema = gc["responseSchema"]
		}
		b, _ := json.Marshal(fromSchema(obj(schema), ""))
		parts = []any{map[string]any{"text": string(b)}}
	default:
		rec.Reply = "text"
		parts = []any{map[string]any{"text": s.script.FinalText}}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-mock",
	}
	if strings.Contains(path, "streamGenerateContent") {
		e := startSSE(w)
		e.event("", resp)
		return
	}
	writeJSON(w, resp)
}

// fromSchema returns a minimal value satisfying a Gemini/OpenAPI-style JSON
// schema: the first enum value, every object property, empty arrays, false,
// numbers from "minimum" (10 for keys naming a score, or when unset), and
// "mock <key>" strings.
func fromSchema(schema map[string]any, key string) any {
	if schema == nil {
		return map[string]any{}
	}
	if e := list(schema["enum"]); len(e) > 0 {
		return e[0]
	}
	t := strings.ToLower(fmt.Sprint(schema["type"]))
	if schema["type"] == nil {
		t = "object"
	}
	switch t {
	case "object":
		out := map[string]any{}
		for k, v := range obj(schema["properties"]) {
			out[k] = fromSchema(obj(v), k)
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		if m, ok := schema["minimum"]; ok && !strings.Contains(key, "score") {
			return m
		}
		return 10
	case "boolean":
		return false
	}
	return "mock " + key
}

// --- OpenAI chat completions (opencode) -------------------------------------

// chat answers POST /v1/chat/completions. opencode 1.18.33 offers "bash"
// ({command, description}) and "write" ({filePath, content}) among its tools
// (../shared/e2e/README.md §4; write's argument names from the tool schema
// opencode sends, checked by the edit case).
func (s *Server) chat(w http.ResponseWriter, doc map[string]any, rec *Request) {
	results := 0
	for _, m := range list(doc["messages"]) {
		if str(obj(m)["role"]) == "tool" {
			results++
		}
	}
	var names []string
	for _, t := range list(doc["tools"]) {
		names = append(names, str(obj(obj(t)["function"])["name"]))
	}
	rec.HasTools = len(names) > 0
	tool := "bash"
	// Qwen Code 0.24.4 speaks chat completions too, with Gemini CLI's tool
	// names: run_shell_command {command, description, directory, …} and
	// write_file {file_path, content} (the tool schemas it sends, recorded
	// in TestRealQwen).
	qwen := !contains(names, "bash") && contains(names, "run_shell_command")
	if qwen {
		tool = "run_shell_command"
	}
	if s.script.Edit != nil {
		tool = "write"
		if qwen {
			tool = "write_file"
		}
	}
	if s.script.Call != nil {
		tool = s.script.Call.Name
	}
	n := len(s.Requests())
	id, created, model := fmt.Sprintf("chatcmpl-%02d", n), time.Now().Unix(), str(doc["model"])
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	command, isTool := s.toolWanted(contains(names, tool), results)
	args := map[string]any{"command": command, "description": "run the requested command"}
	if s.script.Edit != nil {
		args = map[string]any{"filePath": s.script.Edit.Path, "content": s.script.Edit.Content}
		if qwen {
			args = map[string]any{"file_path": s.script.Edit.Path, "content": s.script.Edit.Content}
		}
	}
	if s.script.Call != nil {
		args = s.script.Call.Input
	}
	if isTool {
		rec.Reply, rec.Tool = "tool", tool
	} else {
		rec.Reply = "text"
	}
	argText, _ := json.Marshal(args)
	callID := fmt.Sprintf("call_%02d", n)
	if stream, _ := doc["stream"].(bool); !stream {
		var message map[string]any
		finish := "stop"
		if isTool {
			message = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
				"id": callID, "type": "function", "function": map[string]any{"name": tool, "arguments": string(argText)}}}}
			finish = "tool_calls"
		} else {
			message = map[string]any{"role": "assistant", "content": s.script.FinalText}
		}
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}}, "usage": usage})
		return
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	e := startSSE(w)
	if isTool {
		e.event("", chunk(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": callID, "type": "function", "function": map[string]any{"name": tool, "arguments": ""}}}}, nil))
		e.event("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": string(argText)}}}}, nil))
		e.event("", chunk(map[string]any{}, "tool_calls"))
	} else {
		e.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
		e.event("", chunk(map[string]any{"content": s.script.FinalText}, nil))
		e.event("", chunk(map[string]any{}, "stop"))
	}
	e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": []any{}, "usage": usage})
	e.raw("data: [DONE]\n\n")
}
