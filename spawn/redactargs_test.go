package spawn

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hookwarden/hookwarden/spawn/mcpconfig"
)

// TestRedactArgvCases replays testdata/spawn/redact-argv.json through
// parseClaudeRedactArgs, and for every accepted argv checks that apply
// with each text upper-cased puts exactly those texts back where they
// came from (the --agents JSON keeps its other fields).
func TestRedactArgvCases(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "spawn", "redact-argv.json"))
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		Cases []struct {
			Name, Refuse, Schema, Session string
			Args, Channels, MCP, Rest     []string
		}
	}
	if err := json.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	for _, c := range corpus.Cases {
		t.Run(c.Name, func(t *testing.T) {
			p, err := parseClaudeRedactArgs(c.Args)
			if c.Refuse != "" {
				if r := AsRefusal(err); r == nil || string(r.Reason) != c.Refuse {
					t.Fatalf("want %s, got %v", c.Refuse, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			var up []string
			for _, s := range p.Slots {
				got = append(got, s.Channel+"="+s.Text)
				up = append(up, strings.ToUpper(s.Text))
			}
			if !slices.Equal(got, c.Channels) {
				t.Fatalf("channels %q, want %q", got, c.Channels)
			}
			schema := ""
			if p.Schema >= 0 {
				schema = c.Args[p.Schema]
			}
			if schema != c.Schema || p.SessionID != c.Session {
				t.Fatalf("schema %q session %q", schema, p.SessionID)
			}
			out, err := p.apply(c.Args, up)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.MCPConfigs, c.MCP) {
				t.Fatalf("mcp configs %q, want %q", p.MCPConfigs, c.MCP)
			}
			if c.Rest != nil {
				if rest := p.withoutMCP(out); !slices.Equal(rest, c.Rest) {
					t.Fatalf("apply, withoutMCP = %q, want %q", rest, c.Rest)
				}
				return
			}
			for i, s := range p.Slots {
				if s.agent == "" {
					if out[s.Index] != up[i] {
						t.Errorf("slot %s: %q", s.Channel, out[s.Index])
					}
					continue
				}
				var agents map[string]map[string]any
				json.Unmarshal([]byte(out[s.Index]), &agents)
				if agents[s.agent][s.field] != up[i] {
					t.Errorf("agent %s %s: %v", s.agent, s.field, agents[s.agent][s.field])
				}
				if s.agent == "b" && agents["b"]["tools"] == nil {
					t.Errorf("the agent lost its other fields: %s", out[s.Index])
				}
			}
		})
	}
}

// TestNamedSecrets: the table's second part takes declared names at any
// length, credential-named variables and assignment arguments from eight
// bytes, and the argument after one whose text matches (not one starting
// with -); nothing else; repeated values once; a non-UTF-8 value is an
// error.
func TestNamedSecrets(t *testing.T) {
	env := []string{"PATH=/usr/bin", "GH_TOKEN=ghp_abcdefgh12345678", "DB_PASSWORD=hunter2", "DATABASE_URL=postgres://x:y@h/d",
		"AUTH_METHOD=password", "OPENAI_APIKEY=sk-abcdefghij", "SHORT=abc", "DECLARED=abcd", "EMPTY_TOKEN=", "COPY_TOKEN=ghp_abcdefgh12345678"}
	args := []string{"-p", "x", "API_KEY=abcdefgh9", "--token", "tok-12345678", "--password", "-notvalue1", "--secret", "short"}
	got, err := namedSecrets(env, args, []string{"DECLARED"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range got {
		names = append(names, n.Name+"="+n.Value)
	}
	want := []string{"GH_TOKEN=ghp_abcdefgh12345678", "AUTH_METHOD=password", "OPENAI_APIKEY=sk-abcdefghij", "DECLARED=abcd",
		"API_KEY=abcdefgh9", "ARG_4=tok-12345678"}
	if !slices.Equal(names, want) {
		t.Fatalf("got %q\nwant %q", names, want)
	}
	if _, err := namedSecrets([]string{"X_TOKEN=\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"}, nil, nil); err == nil {
		t.Fatal("a non-UTF-8 value was taken")
	}
	taken := map[string]bool{"[GH_TOKEN]": true, "[GH_TOKEN_2]": true}
	if tok := mintToken("gh-token", func(s string) bool { return taken[s] }); tok != "[GH_TOKEN_3]" {
		t.Fatalf("mintToken: %s", tok)
	}
}

// TestMCPSecrets: the MCP servers' credentials join the table's named
// part: env values under declared or credential-like names, header values
// under credential-like names and the credential after their scheme, from
// eight bytes; nothing else.
func TestMCPSecrets(t *testing.T) {
	got, err := mcpSecrets(map[string]mcpconfig.Upstream{
		"vault": {Command: "v", Env: map[string]string{"VAULT_TOKEN": "vault-tok-1234", "REGION": "eu-west-1-long", "PIN": "1234", "SHORT_KEY": "abc"}},
		"web":   {Type: "http", URL: "https://x.test", Headers: map[string]string{"Authorization": "Bearer cred-0987654321", "X-API-Key": "k-12345678", "Accept": "application/json"}},
	}, []string{"PIN"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range got {
		names = append(names, n.Name+"="+n.Value)
	}
	want := []string{"vault_PIN=1234", "vault_VAULT_TOKEN=vault-tok-1234", "web_Authorization=Bearer cred-0987654321",
		"web_Authorization_credential=cred-0987654321", "web_X-API-Key=k-12345678"}
	if !slices.Equal(names, want) {
		t.Fatalf("got %q\nwant %q", names, want)
	}
}
