package doctor

import "testing"

// TestReadAnswerCline: a Cline answer is read as Cline reads it: only one
// {"cancel":…} object on exit 0 is an answer (anything else lets Cline's
// call through, a fault); the other row's "judges only tools matching" skip
// line of the one hook file does not make an allow a skip.
func TestReadAnswerCline(t *testing.T) {
	other := "hookwarden: skip: cline pre-edit judges only tools matching ^(write_to_file)$; this call is for another tool\n"
	for _, tc := range []struct {
		name, stdout, stderr string
		code                 int
		want                 string
	}{
		{"cancel", `{"cancel":true,"errorMessage":"[BLOCKED BY hookwarden:git-no-verify] no"}` + "\n", other, 0, "deny"},
		{"allow with the other row's skip", `{"cancel":false}` + "\n", other, 0, "allow"},
		{"stated skip", `{"cancel":false}` + "\n", other + "hookwarden: skip: /r is not a governed repository\n", 0, "skip"},
		{"exit 2 with a reason on stderr", "", "[BLOCKED BY hookwarden:launcher] no engine\n", 2, "error"},
		{"no JSON", "", "", 0, "error"},
		{"JSON without cancel", `{"errorMessage":"x"}`, "", 0, "error"},
		{"allow on a non-zero exit", `{"cancel":false}`, "", 1, "error"},
	} {
		if got, _ := readAnswer("cline", "pre-tool", tc.code, []byte(tc.stdout), tc.stderr); got != tc.want {
			t.Errorf("%s: read %q, want %q", tc.name, got, tc.want)
		}
	}
}
