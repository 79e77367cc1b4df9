package ext

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/folio-server/folio/internal/cli"
	"github.com/folio-server/folio/internal/extension"
)

// Version is what the custom binary's `version` command prints; set it at
// build time with -ldflags "-X github.com/folio-server/folio/ext.Version=v1.2.3".
var Version = "dev"

// Main runs a custom folio binary with the extensions added with Use. The
// binary has the stock binary's whole command line (serve, migrate,
// version, user create/app-password/list, db copy, bench, with the same
// flags and FOLIO_* environment variables); serve builds the site with
// the extensions. Main exits the process with status 1 on error.
func Main() {
	if err := Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "folio:", err)
		os.Exit(1)
	}
}

// Run is Main without the exit: it runs the command in args with the
// extensions added with Use, writing to stdout and stderr, until it
// finishes, ctx ends or (serve) SIGINT/SIGTERM arrives.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root := cli.NewRootCmd(Version, extension.Registered()...)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return root.ExecuteContext(ctx)
}
