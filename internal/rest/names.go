package rest

// Names are the public names of the API: URL prefix, namespace, header
// prefix, link-relation base, nonce parameter, settings object and nonce
// endpoint. They are the only place these names are spelled; the default
// mode uses the spec's names (DefaultNames), the WordPress-compatibility
// mode WordPress's own (WordPressNames).
type Names struct {
	Prefix       string // URL path of the API root without trailing slash, e.g. "/api"
	Namespace    string // e.g. "svc/v2"
	HeaderPrefix string // e.g. "X-API-"
	RelBase      string // link-relation base, ending in "/"
	CurieName    string // curie name of RelBase relations
	// NonceParam is the query or form parameter that can carry the nonce
	// instead of the nonce header.
	NonceParam string
	// SettingsObject is the window global that hands pages of signed-in
	// browsers the API settings; SettingsAlias, when set, is a second name
	// for the same object.
	SettingsObject, SettingsAlias string
	// NonceEndpoint is the site path (with its query) that answers a
	// signed-in browser a fresh nonce as plain text.
	NonceEndpoint string
	// WordPress selects the later platform's shapes where they differ
	// from the spec's, for the clients of the compatibility mode: media
	// caption and description as {raw, rendered} objects instead of
	// strings, lists of slugs in the slug filters.
	WordPress bool
}

// DefaultNames returns Folio's own names.
func DefaultNames() Names {
	return Names{
		Prefix:         "/api",
		Namespace:      "svc/v2",
		HeaderPrefix:   "X-API-",
		RelBase:        "https://api.folio.dev/",
		CurieName:      "wp",
		NonceParam:     "_wpnonce",
		SettingsObject: "folioApiSettings",
		NonceEndpoint:  "/admin/nonce",
	}
}

// WordPressNames returns the names of the WordPress-compatibility mode.
func WordPressNames() Names {
	return Names{
		Prefix:         "/wp-json",
		Namespace:      "wp/v2",
		HeaderPrefix:   "X-WP-",
		RelBase:        "https://api.w.org/",
		CurieName:      "wp",
		NonceParam:     "_wpnonce",
		SettingsObject: "folioApiSettings",
		SettingsAlias:  "wpApiSettings",
		NonceEndpoint:  "/wp-admin/admin-ajax.php?action=rest-nonce",
		WordPress:      true,
	}
}

// TotalHeader is the header with a collection's total ("X-API-Total").
func (n Names) TotalHeader() string { return n.HeaderPrefix + "Total" }

// TotalPagesHeader is the header with a collection's page count
// ("X-API-TotalPages").
func (n Names) TotalPagesHeader() string { return n.HeaderPrefix + "TotalPages" }

// NonceHeader is the request and response header carrying the nonce
// ("X-API-Nonce").
func (n Names) NonceHeader() string { return n.HeaderPrefix + "Nonce" }
