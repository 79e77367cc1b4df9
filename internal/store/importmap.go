package store

import "context"

// ImportMapStore remembers what an import made of the records of another
// site: for one source (the exported site's base URL), one kind of record
// (post, comment, term, user) and the record's id there, the id of the
// record it became here. `folio import wxr` writes each entry in the same
// transaction as the record it maps, so a rerun of the same file skips what
// exists and an interrupted run resumes where it stopped.
type ImportMapStore interface {
	// ImportedIDs returns every entry recorded for kind from source: old
	// id → new id.
	ImportedIDs(ctx context.Context, source, kind string) (map[string]int64, error)
	// RecordImported remembers that the record kind/oldID of source became
	// newID here, replacing an earlier entry for it.
	RecordImported(ctx context.Context, source, kind, oldID string, newID int64) error
}
