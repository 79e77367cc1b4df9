package cli

import (
	"slices"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/extension"
)

// configWithExtensions returns cfg with the post types and taxonomies the
// extensions register added, as serve builds the site, so that commands
// reading or writing content (import, export) see the same types. cfg
// itself is not changed.
func configWithExtensions(cfg *config.Config, exts []extension.Extension) (*config.Config, error) {
	if len(exts) == 0 {
		return cfg, nil
	}
	api, err := extension.New(exts...)
	if err != nil {
		return nil, err
	}
	c := *cfg
	c.PostTypes = slices.Clone(cfg.PostTypes)
	c.Taxonomies = slices.Clone(cfg.Taxonomies)
	if err := api.Configure(&c); err != nil {
		return nil, err
	}
	return &c, nil
}
