package preservation

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

// lowestStop is the byte-at-a-time answer stringStops must agree with: the
// lane of the first stop in w, or 8.
func lowestStop(w uint64) int {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], w)
	for i, c := range b {
		if isStringStop(c) {
			return i
		}
	}
	return 8
}

func stopLane(w uint64) int {
	if m := stringStops(w); m != 0 {
		return bits.TrailingZeros64(m) >> 3
	}
	return 8
}

func TestIsStringStop(t *testing.T) {
	for c := range 256 {
		want := c < 0x20 || c == '"' || c == '\\'
		if got := isStringStop(byte(c)); got != want {
			t.Errorf("byte %#02x: isStringStop says %v", c, got)
		}
	}
}

// TestStringStopsEveryByteEveryLane puts every byte value in every lane of
// words whose other bytes come from the values next to the stops, before
// and after it, so borrows from below and false marks above are exercised.
func TestStringStopsEveryByteEveryLane(t *testing.T) {
	fillers := []byte{'a', ' ', '!', '#', '[', ']', 0x1f, 0x20, 0x7f, 0x80, 0xa2, 0xdc, 0xff, 0x00, '"', '\\'}
	for c := range 256 {
		for lane := range 8 {
			for _, below := range fillers {
				for _, above := range fillers {
					var b [8]byte
					for i := range b {
						switch {
						case i < lane:
							b[i] = below
						case i > lane:
							b[i] = above
						default:
							b[i] = byte(c)
						}
					}
					w := binary.LittleEndian.Uint64(b[:])
					if got, want := stopLane(w), lowestStop(w); got != want {
						t.Fatalf("word % x: stringStops gives lane %d, want %d", b, got, want)
					}
				}
			}
		}
	}
}

func TestStringStopsRandomWords(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 11))
	special := []byte{0x00, 0x1f, '"', '\\', 0x20, 0x21, 0x5b, 0x5d, 0x7f, 0x80, 0xff}
	for range 200_000 {
		var b [8]byte
		for i := range b {
			if rnd.IntN(4) == 0 {
				b[i] = special[rnd.IntN(len(special))]
			} else {
				b[i] = byte(rnd.IntN(256))
			}
		}
		w := binary.LittleEndian.Uint64(b[:])
		if got, want := stopLane(w), lowestStop(w); got != want {
			t.Fatalf("word % x: stringStops gives lane %d, want %d", b, got, want)
		}
	}
}

// TestScanStringsAtEveryOffset moves each kind of string content across
// the eight-byte boundaries the scan reads at, on and off a rule's path,
// and holds the result to encoding/json and client-go's jsonpath.
func TestScanStringsAtEveryOffset(t *testing.T) {
	contents := []string{
		`"`, `\"`, `\\`, `\u00e9`, `\u12`, `\x`, "\x01", "\x1f", "\x7f", "\xff", "é", `\`,
	}
	for _, content := range contents {
		for pad := range 20 {
			value := strings.Repeat("p", pad) + content + strings.Repeat("q", pad%9)
			docs := []string{
				`{"a":"` + value + `"}`,
				`{"skipped":["` + value + `",{"k":"` + value + `"}],"a":"v"}`,
				`{"` + value + `":1,"a":"v"}`,
				`{"a":"` + value,
			}
			for _, doc := range docs {
				compareWithReference(t, []byte(doc), []string{"a"})
			}
		}
	}
}

// TestScanDeepSkippedValues nests skipped values past the 64 levels the
// skip's bit stack holds, with a wrong closing bracket at each depth.
func TestScanDeepSkippedValues(t *testing.T) {
	for _, depth := range []int{1, 63, 64, 65, 66, 128, 129, 200} {
		var open, close strings.Builder
		for i := range depth {
			if i%3 == 0 {
				open.WriteString(`{"k":`)
			} else {
				open.WriteString(`[0,`)
			}
		}
		for i := depth - 1; i >= 0; i-- {
			if i%3 == 0 {
				close.WriteString(`}`)
			} else {
				close.WriteString(`]`)
			}
		}
		good := open.String() + "1" + close.String()
		compareWithReference(t, []byte(`{"skipped":`+good+`,"a":"v"}`), []string{"a"})
		compareWithReference(t, []byte(`{"a":`+good+`}`), []string{"a"})
		for at := 0; at < depth; at++ {
			bad := []byte(good)
			i := len(open.String()) + 1 + at
			if bad[i] == '}' {
				bad[i] = ']'
			} else {
				bad[i] = '}'
			}
			compareWithReference(t, append(append([]byte(`{"skipped":`), bad...), `,"a":"v"}`...), []string{"a"})
		}
	}
}
