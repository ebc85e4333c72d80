// Command mergecli is a probe helper for merged_probe.py: it reads
// {"client", "before_file", "want": [Handler]} on stdin and writes the bytes
// clientjson.Merge makes of before_file. Build: go build -o /tmp/hookwarden-mergecli ./clientjson/testdata/mergecli
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/hookwarden/hookwarden/clientjson"
)

func main() {
	var in struct {
		Client     string
		BeforeFile string `json:"before_file"`
		Want       []clientjson.Handler
	}
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	src, err := os.ReadFile(in.BeforeFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	res, err := clientjson.Merge(in.BeforeFile, src, in.Client, in.Want, clientjson.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(res.Out)
}
