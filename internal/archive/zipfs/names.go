package zipfs

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelfs/modelfs/internal/archive"
)

// The tree of a zip's names, as the games see an archive's: names found whatever their case,
// listings in the archive's spelling. A node keeps only its own name and its parent, so that
// a name of 64 KiB costs its bytes once, not once per folder on its way; a folder's children
// are one run of kids, sorted ignoring case, which a lookup searches.

// tree is an archive's folders and members.
type tree struct {
	nodes []node  // nodes[0] is the root
	kids  []int32 // every folder's children, one run each (see node)
}

// node is a folder or a member.
type node struct {
	name   string // as shown (see archive.ShownName); "." for the root
	parent int32  // -1 for the root
	entry  int32  // the member's entry; -1 for a folder
	first  int32  // a folder's children are kids[first : first+count]
	count  int32
}

func (n *node) isDir() bool { return n.entry < 0 }

// builder makes a tree from the archive's names, in the central directory's order.
type builder struct {
	t     tree
	index map[childKey]int32 // (folder, name lowered) → node
	warn  func(format string, args ...any)
}

type childKey struct {
	parent int32
	fold   string
}

func newBuilder(hint int, warn func(string, ...any)) *builder {
	b := &builder{index: make(map[childKey]int32, hint), warn: warn}
	b.t.nodes = make([]node, 1, hint+1)
	b.t.nodes[0] = node{name: ".", parent: -1, entry: -1}
	return b
}

// splitName returns the path elements a member's name stands for inside the archive, as
// shown: backslashes are separators (archives made on Windows), "." and empty elements are
// dropped and ".." climbs, as a file system would resolve them. ok is false for a name that
// climbs out of the archive or names its root.
func splitName(raw string) (elems []string, ok bool) {
	s := strings.ReplaceAll(raw, `\`, "/")
	for el := range strings.SplitSeq(s, "/") {
		switch el {
		case "", ".":
		case "..":
			if len(elems) == 0 {
				return nil, false
			}
			elems = elems[:len(elems)-1]
		default:
			elems = append(elems, archive.ShownName(el))
		}
	}
	return elems, len(elems) > 0
}

// add places the member entry (or, with entry -1, a folder) at the path elems. Of two members
// whose paths are equal ignoring case the later is shown, as appending tools mean it; a member
// and a folder of one name is the folder.
func (b *builder) add(raw string, elems []string, entry int32) {
	p := int32(0)
	for i, el := range elems {
		last := i == len(elems)-1
		key := childKey{p, strings.ToLower(el)}
		c, found := b.index[key]
		switch {
		case !found:
			c = int32(len(b.t.nodes))
			n := node{name: el, parent: p, entry: -1}
			if last {
				n.entry = entry
			}
			b.t.nodes = append(b.t.nodes, n)
			b.index[key] = c
		case last && entry >= 0 && b.t.nodes[c].isDir():
			b.warn("member %q has the name of a folder; left out", raw)
			return
		case last && entry >= 0:
			if old := b.t.nodes[c].name; old != el {
				b.warn("member %q differs from %q only in case; the later is shown", raw, old)
			}
			b.t.nodes[c].name, b.t.nodes[c].entry = el, entry
		case !b.t.nodes[c].isDir():
			b.warn("member %q gives way to the folder %q", b.path(c), raw)
			b.t.nodes[c].entry = -1
		}
		p = c
	}
}

// path is the path of the node i, elements joined.
func (b *builder) path(i int32) string { return b.t.path(i) }

// finish lays out every folder's children, sorted ignoring case, and returns the tree.
func (b *builder) finish() *tree {
	t := &b.t
	b.index = nil
	for i := 1; i < len(t.nodes); i++ {
		t.nodes[t.nodes[i].parent].count++
	}
	next := int32(0)
	for i := range t.nodes {
		t.nodes[i].first = next
		next += t.nodes[i].count
		t.nodes[i].count = 0
	}
	t.kids = make([]int32, next)
	for i := 1; i < len(t.nodes); i++ {
		p := &t.nodes[t.nodes[i].parent]
		t.kids[p.first+p.count] = int32(i)
		p.count++
	}
	for i := range t.nodes {
		if n := &t.nodes[i]; n.count > 1 {
			slices.SortFunc(t.children(n), func(x, y int32) int { return foldCompare(t.nodes[x].name, t.nodes[y].name) })
		}
	}
	return t
}

// children returns the folder n's children, sorted ignoring case.
func (t *tree) children(n *node) []int32 { return t.kids[n.first : n.first+n.count] }

// child returns the child of the folder n named name, in any case.
func (t *tree) child(n *node, name string) (int32, bool) {
	kids := t.children(n)
	i, found := slices.BinarySearchFunc(kids, name, func(k int32, name string) int { return foldCompare(t.nodes[k].name, name) })
	if !found {
		return -1, false
	}
	return kids[i], true
}

// find resolves a slash-separated path (fs.ValidPath's) in any case, returning its node and
// the path in the archive's spelling.
func (t *tree) find(name string) (int32, string, bool) {
	if name == "." {
		return 0, ".", true
	}
	var b strings.Builder
	i := int32(0)
	for el := range strings.SplitSeq(name, "/") {
		n := &t.nodes[i]
		if !n.isDir() {
			return -1, "", false
		}
		c, ok := t.child(n, el)
		if !ok {
			return -1, "", false
		}
		if b.Len() > 0 {
			b.WriteByte('/')
		}
		b.WriteString(t.nodes[c].name)
		i = c
	}
	return i, b.String(), true
}

// path is the path of the node i, elements joined.
func (t *tree) path(i int32) string {
	if i <= 0 {
		return "."
	}
	var elems []string
	for ; i > 0; i = t.nodes[i].parent {
		elems = append(elems, t.nodes[i].name)
	}
	slices.Reverse(elems)
	return strings.Join(elems, "/")
}

// foldCompare orders names as strings.ToLower of each would, without making them: names equal
// ignoring case (as ToLower says) compare 0.
func foldCompare(a, b string) int {
	for a != "" && b != "" {
		ra, na := rune(a[0]), 1
		if ra >= utf8.RuneSelf {
			ra, na = utf8.DecodeRuneInString(a)
		}
		rb, nb := rune(b[0]), 1
		if rb >= utf8.RuneSelf {
			rb, nb = utf8.DecodeRuneInString(b)
		}
		if c := cmp.Compare(unicode.ToLower(ra), unicode.ToLower(rb)); c != 0 {
			return c
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}
