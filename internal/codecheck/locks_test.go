package codecheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestLocksReleasedByDefer holds every package of the module to one rule: a mutex taken with
// Lock or RLock is released by a defer on the very next statement. Loads run under recover
// (cache.Group turns a panic into an error for one caller); a lock released by a plain call
// after the section stays held when the section panics, and every later caller waits for good.
// A section that must end before its function does goes in a function of its own.
func TestLocksReleasedByDefer(t *testing.T) {
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != "../..") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		n++
		ast.Inspect(f, func(x ast.Node) bool {
			var list []ast.Stmt
			switch b := x.(type) {
			case *ast.BlockStmt:
				list = b.List
			case *ast.CaseClause:
				list = b.Body
			case *ast.CommClause:
				list = b.Body
			default:
				return true
			}
			for i, s := range list {
				recv, lock := lockCall(s)
				if recv == "" {
					continue
				}
				if i+1 < len(list) {
					if d, ok := list[i+1].(*ast.DeferStmt); ok {
						if r, name := selector(d.Call); r == recv && name == strings.Replace(lock, "Lock", "Unlock", 1) {
							continue
						}
					}
				}
				t.Errorf("%s: %s.%s() is not followed by defer %s.%s()", fset.Position(s.Pos()), recv, lock, recv, strings.Replace(lock, "Lock", "Unlock", 1))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("read %d Go files: not the module", n)
	}
}

// lockCall returns the receiver and method of a statement that is a call of Lock() or RLock().
func lockCall(s ast.Stmt) (recv, method string) {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return "", ""
	}
	c, ok := es.X.(*ast.CallExpr)
	if !ok || len(c.Args) != 0 {
		return "", ""
	}
	recv, method = selector(c)
	if method != "Lock" && method != "RLock" {
		return "", ""
	}
	return recv, method
}

// selector returns the receiver (as written) and the method of a method call.
func selector(c *ast.CallExpr) (recv, method string) {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	return render(sel.X), sel.Sel.Name
}

// render renders a receiver expression such as w.d.mu.
func render(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return render(e.X) + "." + e.Sel.Name
	}
	return "?"
}
