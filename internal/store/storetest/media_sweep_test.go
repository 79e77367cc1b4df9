package storetest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

func TestMediaStaleReservations(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	p := &store.Post{Type: "attachment", Status: "inherit", Author: 1, Title: "pic", MimeType: "image/png"}
	if err := st.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	kept := []string{"2024/05/kept.png", "2024/05/kept-150x150.png"}
	lost := []string{"2024/05/lost.png", "2024/05/lost-150x150.png", "2024/05/lost-300x200.png"}
	if err := st.ReserveMediaPaths(ctx, append(append([]string{}, kept...), lost...)); err != nil {
		t.Fatal(err)
	}
	if err := st.AttachMediaPaths(ctx, p.ID, kept); err != nil {
		t.Fatal(err)
	}
	// Reserved a moment ago: not stale an hour back, stale from now on.
	if got, err := st.StaleMediaReservations(ctx, time.Now().Add(-time.Hour), 10); err != nil || len(got) != 0 {
		t.Fatalf("stale an hour back = %v, %v", got, err)
	}
	got, err := st.StaleMediaReservations(ctx, time.Now().Add(2*time.Second), 10)
	want := []string{"2024/05/lost-150x150.png", "2024/05/lost-300x200.png", "2024/05/lost.png"}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("stale = %v, %v; want %v", got, err, want)
	}
	if got, err := st.StaleMediaReservations(ctx, time.Now().Add(2*time.Second), 2); err != nil || len(got) != 2 {
		t.Fatalf("limit 2 = %v, %v", got, err)
	}
	// A reservation still reads as owner 0.
	if id, err := st.MediaPathOwner(ctx, lost[0]); err != nil || id != 0 {
		t.Fatalf("reserved owner = %d, %v", id, err)
	}
	// Releasing reservations never touches attached paths.
	if err := st.ReleaseMediaReservations(ctx, append(append([]string{}, lost...), kept...)); err != nil {
		t.Fatal(err)
	}
	for _, path := range lost {
		if _, err := st.MediaPathOwner(ctx, path); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("swept %s = %v", path, err)
		}
	}
	if got, err := st.MediaPaths(ctx, p.ID); err != nil || len(got) != 2 {
		t.Fatalf("attached paths after release = %v, %v", got, err)
	}
	if got, err := st.StaleMediaReservations(ctx, time.Now().Add(2*time.Second), 10); err != nil || len(got) != 0 {
		t.Fatalf("stale after release = %v, %v", got, err)
	}
}
