package extension

import "sync"

var (
	regMu      sync.Mutex
	registered []Extension
)

// Use adds extensions to the process-wide list the server builds its site
// with (server.New). A custom main calls it before starting the server.
func Use(exts ...Extension) {
	regMu.Lock()
	defer regMu.Unlock()
	registered = append(registered, exts...)
}

// Registered returns the extensions added with Use.
func Registered() []Extension {
	regMu.Lock()
	defer regMu.Unlock()
	return append([]Extension(nil), registered...)
}
