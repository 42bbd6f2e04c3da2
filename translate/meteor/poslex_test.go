package meteor

import (
	"fmt"
	"github.com/modelfs/modelfs/translate/meteor/meteortest"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
)

// lexTrace lists the tokens of data as the general lexer splits them, then how the data ends.
func lexTrace(data []byte) []string {
	lx := newLexer(data, FormatPOS, "x.pos")
	var out []string
	for {
		tok, ok, err := lx.next()
		if err != nil {
			return append(out, "error: "+err.Error())
		}
		if !ok {
			return append(out, fmt.Sprintf("end at line %d", lx.line))
		}
		out = append(out, fmt.Sprintf("%q line %d quoted %v first %v", tok.text, tok.line, tok.quoted, tok.first))
	}
}

// posLexTrace is lexTrace for the .pos tokenizer, which must agree.
func posLexTrace(data []byte) []string {
	lx := &posLexer{data: data, file: "x.pos", line: 1, newLine: true}
	var out []string
	for {
		tok, ok, err := lx.next()
		if err != nil {
			return append(out, "error: "+err.Error())
		}
		if !ok {
			return append(out, fmt.Sprintf("end at line %d", lx.line))
		}
		out = append(out, fmt.Sprintf("%q line %d quoted %v first %v", lx.text(&tok), tok.line, tok.quoted, tok.first))
	}
}

func checkPosLexer(t *testing.T, data []byte) {
	t.Helper()
	want, got := lexTrace(data), posLexTrace(data)
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			t.Fatalf("%q: token %d is %s, want %s", clip(data), i, g, w)
		}
	}
}

// TestPosLexer checks the .pos tokenizer against the general lexer, on real and random text.
func TestPosLexer(t *testing.T) {
	checkPosLexer(t, meteortest.POS())
	if data, err := os.ReadFile(filepath.Join(corpus.RepoRoot(t), "..", "shared", "corpus", "meteor", "pmodel", "P0.pos")); err == nil {
		checkPosLexer(t, data)
	}
	pieces := []string{" ", "  ", "        ", "\t", "\r\n", "\n", "\r", "\v", "\f", "\x00", "\x01", "\x1f", "#", "# c\n", "#\r\r\n",
		"\"", "\"q\"", "\"a b\"", "\"\n", "{", "}", ",", "=", "Pose", "12", "-3.5", "\xb4\xfa", "\xff", "a", "Start",
		strings.Repeat("w", maxTokenLen), strings.Repeat("w", maxTokenLen+1), "\"" + strings.Repeat("q", maxTokenLen+1) + "\""}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		for range r.IntN(600) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		checkPosLexer(t, []byte(b.String()))
	}
}

func FuzzPosLexer(f *testing.F) {
	f.Add(meteortest.POS())
	f.Add([]byte("Pose 1 # c\r\n{\t\"a\",b=c\x00}\n\"open"))
	f.Fuzz(checkPosLexer)
}
