// Command depsfloor is the reference "the hook path's libraries, none of its
// code" of BenchmarkHookProcess: the trivial program (read stdin, decode it
// as JSON, write a line) linked with every package outside this module that
// testdata/enginemain links, so that their initialisation and the size they
// add are paid before main runs and nothing else is. TestDepsFloorLinksTheHookPath
// keeps the import list equal to enginemain's dependencies outside the module.
package main

import (
	"encoding/json"
	"os"

	_ "bufio"
	_ "bytes"
	_ "cmp"
	_ "context"
	_ "crypto"
	_ "crypto/cipher"
	_ "crypto/fips140"
	_ "crypto/rand"
	_ "crypto/sha256"
	_ "crypto/subtle"
	_ "embed"
	_ "encoding"
	_ "encoding/base64"
	_ "encoding/binary"
	_ "encoding/hex"
	_ "errors"
	_ "fmt"
	_ "hash"
	_ "io"
	_ "io/fs"
	_ "iter"
	_ "maps"
	_ "math"
	_ "math/big"
	_ "math/bits"
	_ "math/rand"
	_ "math/rand/v2"
	_ "net/netip"
	_ "net/url"
	_ "os/exec"
	_ "os/signal"
	_ "os/user"
	_ "path"
	_ "path/filepath"
	_ "reflect"
	_ "regexp"
	_ "regexp/syntax"
	_ "slices"
	_ "sort"
	_ "strconv"
	_ "strings"
	_ "sync"
	_ "sync/atomic"
	_ "syscall"
	_ "text/tabwriter"
	_ "time"
	_ "unicode"
	_ "unicode/utf16"
	_ "unicode/utf8"
	_ "unique"
	_ "weak"

	_ "github.com/google/renameio/v2"
	_ "github.com/pelletier/go-toml/v2"
	_ "github.com/pelletier/go-toml/v2/unstable"
	_ "github.com/tailscale/hujson"
	_ "github.com/tdewolff/parse/v2"
	_ "github.com/tdewolff/parse/v2/buffer"
	_ "github.com/tdewolff/parse/v2/js"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/mod/modfile"
	_ "golang.org/x/mod/module"
	_ "golang.org/x/mod/semver"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/term"
	_ "golang.org/x/text/transform"
	_ "golang.org/x/text/unicode/norm"
	_ "mvdan.cc/sh/v3/expand"
	_ "mvdan.cc/sh/v3/fileutil"
	_ "mvdan.cc/sh/v3/interp"
	_ "mvdan.cc/sh/v3/pattern"
	_ "mvdan.cc/sh/v3/syntax"
)

func main() {
	var v map[string]any
	if err := json.NewDecoder(os.Stdin).Decode(&v); err != nil {
		os.Exit(1)
	}
	os.Stdout.WriteString("{}\n")
}
