package templates

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestLefthookJobsFile: the rendered .hookwarden/lefthook.yml carries a
// render header that verifies, parses as YAML and holds exactly the jobs
// LefthookJobs names, under their hooks, with use_stdin on the pre-tool job
// only (lefthook hands that job the agent's payload).
func TestLefthookJobsFile(t *testing.T) {
	files, err := Render([]string{"lefthook"})
	if err != nil {
		t.Fatal(err)
	}
	var body []byte
	for _, f := range files {
		if f.Path == LefthookJobsPath {
			body = f.Body
		}
	}
	if h, ok := ParseHeader(body); !ok || h.Edited {
		t.Fatalf("render header missing or not verifying: %q", body)
	}
	var doc map[string]struct {
		Jobs []struct {
			Name, Run string
			UseStdin  bool `yaml:"use_stdin"`
		}
	}
	if err := yaml.Unmarshal(body, &doc); err != nil {
		t.Fatalf("does not parse: %v\n%s", err, body)
	}
	jobs, err := LefthookJobs()
	if err != nil {
		t.Fatal(err)
	}
	if len(doc) != len(jobs) {
		t.Errorf("%d hooks, want %d", len(doc), len(jobs))
	}
	for _, j := range jobs {
		got := doc[j.Hook].Jobs
		if len(got) != 1 || got[0].Name != j.Name || got[0].Run != j.Run || got[0].UseStdin != (j.Event == "pre-tool") {
			t.Errorf("hook %s: jobs %+v, want one %+v", j.Hook, got, j)
		}
	}
}
