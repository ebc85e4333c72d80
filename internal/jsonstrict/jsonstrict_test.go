package jsonstrict

import "testing"

func TestDecode(t *testing.T) {
	type doc struct {
		A int `json:"a"`
	}
	for in, ok := range map[string]bool{`{"a":1}`: true, " {\"a\":1}\n ": true, `{"a":1,"b":2}`: false, `{"a":1} {}`: false, `{"a":1} x`: false, `{"a":`: false, ``: false} {
		var d doc
		if err := Decode([]byte(in), &d); (err == nil) != ok {
			t.Errorf("%q: err %v, want ok=%v", in, err, ok)
		}
	}
}
