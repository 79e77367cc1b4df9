// Command folio is the Folio content server: it serves the REST API, runs
// migrations, manages users and application passwords, and benchmarks
// itself. See README.md and the command-line contract in cli.md.
package main

import (
	"fmt"
	"os"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "folio:", err)
		os.Exit(1)
	}
}
