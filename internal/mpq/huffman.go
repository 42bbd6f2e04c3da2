package mpq

import (
	"encoding/hex"
	"errors"
	"fmt"
)

// MPQ's Huffman coding (used before ADPCM on sound): a tree built from one of nine weight
// tables, chosen by the stream's first byte. The tree keeps its nodes in one list ordered by
// weight, heaviest first; a node's heavier child is the node just in front of its lighter
// child, so only the lighter one is stored. Symbol 0x100 ends the stream; 0x101 brings a byte
// the tree lacks, which is grafted on. Type 0 adapts the weights after every symbol; the
// others only when a byte is grafted on. Bits are read least significant first.

const (
	huffEnd     = 0x100
	huffLiteral = 0x101
	huffNodes   = 0x203 // 258 leaves and 257 inner nodes
)

var huffTables = func() (t [9][256]byte) {
	for i, h := range huffWeights {
		if _, err := hex.Decode(t[i][:], []byte(h)); err != nil {
			panic(err)
		}
	}
	return t
}()

type hnode struct {
	value                   int
	weight                  uint32
	parent, low, prev, next *hnode
}

type htree struct {
	pool    [huffNodes]hnode
	used    int
	s       hnode // the list's sentinel: s.next is the heaviest node (the root), s.prev the lightest
	byValue [huffLiteral + 1]*hnode
}

var errHuffNodes = errors.New("more grafted bytes than the tree can hold")

func (t *htree) node(v int, w uint32) (*hnode, error) {
	if t.used == len(t.pool) {
		return nil, errHuffNodes
	}
	n := &t.pool[t.used]
	t.used++
	*n = hnode{value: v, weight: w}
	return n, nil
}

func (t *htree) insertAfter(a, n *hnode) {
	n.prev, n.next = a, a.next
	a.next.prev = n
	a.next = n
}

func (t *htree) unlink(n *hnode) {
	n.prev.next, n.next.prev = n.next, n.prev
	n.prev, n.next = nil, nil
}

// findFromBack walks from start toward the front and returns the first node at least w heavy,
// or the sentinel.
func (t *htree) findFromBack(start *hnode, w uint32) *hnode {
	for n := start; n != &t.s; n = n.prev {
		if n.weight >= w {
			return n
		}
	}
	return &t.s
}

// place moves n, just pushed to the front, behind the nodes at least as heavy, unless it is
// the heaviest yet; it returns the heaviest weight.
func (t *htree) place(n *hnode, maxW uint32) uint32 {
	if n.weight >= maxW {
		return n.weight
	}
	if h := t.findFromBack(t.s.prev, n.weight); h != n {
		t.unlink(n)
		t.insertAfter(h, n)
	}
	return maxW
}

func (t *htree) build(weights *[256]byte) error {
	t.s.next, t.s.prev = &t.s, &t.s
	var maxW uint32
	for v, w := range weights {
		if w == 0 {
			continue
		}
		n, _ := t.node(v, uint32(w))
		t.insertAfter(&t.s, n)
		t.byValue[v] = n
		maxW = t.place(n, maxW)
	}
	for _, v := range []int{huffEnd, huffLiteral} {
		n, _ := t.node(v, 1)
		t.insertAfter(t.s.prev, n)
		t.byValue[v] = n
	}
	for lo := t.s.prev; lo != &t.s; {
		hi := lo.prev
		if hi == &t.s {
			break
		}
		p, err := t.node(0, hi.weight+lo.weight)
		if err != nil {
			return err
		}
		t.insertAfter(&t.s, p)
		lo.parent, hi.parent, p.low = p, p, lo
		maxW = t.place(p, maxW)
		lo = hi.prev
	}
	return nil
}

// increment adds one to n's weight and its ancestors', swapping a node ahead of the lighter
// ones it now outweighs, list and tree alike.
func (t *htree) increment(n *hnode) error {
	for ; n != nil; n = n.parent {
		n.weight++
		h := t.findFromBack(n.prev, n.weight)
		c := h.next
		if c == n {
			continue
		}
		if c.parent == nil || n.parent == nil {
			return errors.New("tree out of order")
		}
		t.unlink(c)
		t.insertAfter(n, c)
		t.unlink(n)
		t.insertAfter(h, n)
		savedLow := c.parent.low
		if n.parent.low == n {
			n.parent.low = c
		}
		if savedLow == c {
			c.parent.low = n
		}
		n.parent, c.parent = c.parent, n.parent
	}
	return nil
}

// graft turns the lightest leaf into an inner node over a copy of itself and the new byte v.
func (t *htree) graft(v int) error {
	last := t.s.prev
	hi, err := t.node(last.value, last.weight)
	if err != nil {
		return err
	}
	t.insertAfter(t.s.prev, hi)
	hi.parent = last
	t.byValue[last.value] = hi
	lo, err := t.node(v, 0)
	if err != nil {
		return err
	}
	t.insertAfter(t.s.prev, lo)
	lo.parent = last
	last.low = lo
	t.byValue[v] = lo
	return t.increment(lo)
}

func (t *htree) decode(r *bitReader) (int, error) {
	n := t.s.next
	for n.low != nil {
		bit, err := r.take(1)
		if err != nil {
			return 0, err
		}
		if bit == 1 {
			n = n.low.prev
		} else {
			n = n.low
		}
	}
	return n.value, nil
}

func unHuffman(in []byte, limit int) ([]byte, error) {
	r := &bitReader{in: in}
	typ, err := r.take(8)
	if err != nil {
		return nil, err
	}
	if typ&0x0F > 8 {
		return nil, fmt.Errorf("unknown tree type %d", typ)
	}
	adaptive := typ == 0
	t := new(htree)
	if err := t.build(&huffTables[typ&0x0F]); err != nil {
		return nil, err
	}
	out := make([]byte, 0, limit)
	for len(out) < limit {
		sym, err := t.decode(r)
		if err != nil {
			return nil, err
		}
		if sym == huffEnd {
			break
		}
		if sym == huffLiteral {
			b, err := r.take(8)
			if err != nil {
				return nil, err
			}
			sym = int(b)
			if err := t.graft(sym); err != nil {
				return nil, err
			}
			if !adaptive {
				if err := t.increment(t.byValue[sym]); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, byte(sym))
		if len(out) == limit {
			break
		}
		if adaptive {
			if err := t.increment(t.byValue[sym]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
