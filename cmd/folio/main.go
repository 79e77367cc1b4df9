// Command folio is the Folio content server: it serves the REST API, runs
// migrations, manages users and application passwords, and benchmarks
// itself. See README.md and the command-line contract in cli.md. The
// commands live in internal/cli, shared with custom binaries (ext.Main).
package main

import (
	"fmt"
	"os"

	"github.com/folio-server/folio/internal/cli"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

// newRootCmd builds the stock command tree (no extensions).
func newRootCmd() *cobra.Command { return cli.NewRootCmd(version) }

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "folio:", err)
		os.Exit(1)
	}
}
