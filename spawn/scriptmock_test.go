package spawn

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// scriptedCall is one tool call the scripted model makes: the tool's name
// and its input.
type scriptedCall struct {
	Tool  string
	Input map[string]any
}

// scriptedModel is a loopback Anthropic Messages server (Claude Code's
// wire: POST /v1/messages with stream true, server-sent events as
// ../shared/e2e/mock_llm.py sends them) whose model makes the calls of
// script one per turn, in order, while a request offers tools, then
// answers "done". Every request body is kept; inspect, when set, is called
// with each body as it arrives (the test's check during the run).
type scriptedModel struct {
	mu     sync.Mutex
	script []scriptedCall
	// plan, when set and script is empty, makes the script from the
	// first request that offers tools (name -> input_schema).
	plan    func(tools map[string]json.RawMessage) []scriptedCall
	next    int
	bodies  []string
	inspect func(body string)
	srv     *http.Server
	port    int
}

// startScriptedModel serves script on 127.0.0.1 until the test ends.
func startScriptedModel(t *testing.T, script []scriptedCall, inspect func(string)) *scriptedModel {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &scriptedModel{script: script, inspect: inspect, port: ln.Addr().(*net.TCPAddr).Port}
	m.srv = &http.Server{Handler: m}
	go m.srv.Serve(ln)
	t.Cleanup(func() { m.srv.Close() })
	return m
}

// log returns every request body received so far, one per line.
func (m *scriptedModel) log() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.bodies, "\n")
}

func (m *scriptedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if strings.Contains(r.URL.Path, "count_tokens") {
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, `{"input_tokens":10}`)
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, `{"data":[]}`)
		return
	}
	if m.inspect != nil {
		m.inspect(string(b))
	}
	var req struct {
		Tools []struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	json.Unmarshal(b, &req)
	m.mu.Lock()
	if m.plan != nil && m.script == nil && len(req.Tools) > 0 {
		tools := map[string]json.RawMessage{}
		for _, tl := range req.Tools {
			tools[tl.Name] = tl.Schema
		}
		m.script = m.plan(tools)
	}
	m.bodies = append(m.bodies, string(b))
	n := len(m.bodies)
	var call *scriptedCall
	if len(req.Tools) > 0 && m.next < len(m.script) {
		call = &m.script[m.next]
		m.next++
	}
	m.mu.Unlock()
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	sse := func(event string, v any) {
		j, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, j)
	}
	stop := "end_turn"
	sse("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": fmt.Sprintf("msg_%02d", n), "type": "message", "role": "assistant",
		"model": "mock-model", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 1, "output_tokens": 1}}})
	if call != nil {
		in, _ := json.Marshal(call.Input)
		sse("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%02d", n), "name": call.Tool, "input": map[string]any{}}})
		sse("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		stop = "tool_use"
	} else {
		sse("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		sse("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": "done"}})
	}
	sse("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 5}})
	sse("message_stop", map[string]any{"type": "message_stop"})
}

// modelCall is one tool call as the model server saw it: the id the
// scripted model gave it, the tool, and the text of the result the engine
// sent back (every text item of the tool_result joined; "" when none came).
type modelCall struct{ ID, Tool, Result string }

// modelCalls returns the tool calls in a request log (one Anthropic
// Messages request body per line, as scriptedModel.log returns it) in the
// order they first appear, each with its result.
func modelCalls(log string) []modelCall {
	var calls []modelCall
	at := map[string]int{}
	for _, body := range strings.Split(log, "\n") {
		var req struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal([]byte(body), &req) != nil {
			continue
		}
		for _, m := range req.Messages {
			var items []struct {
				Type      string          `json:"type"`
				ID        string          `json:"id"`
				Name      string          `json:"name"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
			}
			if json.Unmarshal(m.Content, &items) != nil {
				continue
			}
			for _, it := range items {
				switch it.Type {
				case "tool_use":
					if _, ok := at[it.ID]; !ok {
						at[it.ID] = len(calls)
						calls = append(calls, modelCall{ID: it.ID, Tool: it.Name})
					}
				case "tool_result":
					if i, ok := at[it.ToolUseID]; ok {
						calls[i].Result = resultText(it.Content)
					}
				}
			}
		}
	}
	return calls
}

// resultText is a tool_result's content as text: a string as it is, a list
// of content blocks as their text fields joined by newlines.
func resultText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(c, &blocks)
	var parts []string
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}
