package store_test

import (
	"testing"

	"github.com/folio-server/folio/internal/store"
)

// TestKeptAtKeepsTheNewest: a value is found only at the version it was
// kept for, and a value of an older version never replaces a newer one.
func TestKeptAtKeepsTheNewest(t *testing.T) {
	var k store.KeptAt[string]
	if v, ok := k.Get(1); ok {
		t.Fatalf("empty: %q found", v)
	}
	k.Keep(5, "five")
	if v, ok := k.Get(5); !ok || v != "five" {
		t.Fatalf("Get(5) = %q, %v", v, ok)
	}
	if _, ok := k.Get(6); ok {
		t.Fatal("Get(6) found the value of 5")
	}
	k.Keep(4, "four") // read by an older request: dropped
	if v, ok := k.Get(5); !ok || v != "five" {
		t.Fatalf("after an older Keep: Get(5) = %q, %v", v, ok)
	}
	k.Keep(7, "seven")
	if v, ok := k.Get(7); !ok || v != "seven" {
		t.Fatalf("Get(7) = %q, %v", v, ok)
	}
}
