// Command folio-readingtime is Folio with the reading-time extension built
// in: `go build -o "$(mktemp -d)/folio-readingtime" ./examples/readingtime/cmd/folio-readingtime`.
package main

import (
	"github.com/folio-server/folio/examples/readingtime"
	"github.com/folio-server/folio/ext"
)

func main() {
	ext.Use(readingtime.New())
	ext.Main()
}
