// Package endpoints holds Folio's resource controllers. Each controller has
// the same parts: route registration, permission checks, handlers,
// prepare-for-response (record → resource with links, then the context
// filter applied by the encoder) and prepare-for-database (request → domain
// input), plus its item schema and collection parameters. Controllers call
// the content layer and never the store's SQL.
package endpoints

import (
	"errors"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
)

// Register adds every controller's routes to rs, in the order of the
// original's route table (reference §7.1).
func Register(rs *rest.Server, site *content.Site) {
	ns := rs.Names().Namespace
	for _, pt := range site.Types().All() {
		if !pt.ShowInRest || pt.Name == "attachment" {
			continue
		}
		newPostsController(site, pt, rs.Names()).register(rs, ns)
		if content.SupportsRevisions(pt) {
			newRevisionsController(site, pt, rs.Names()).register(rs, ns)
		}
		if pt.Name == "page" {
			// Media come right after pages (reference §7.1).
			if mt, ok := site.Types().Get(content.AttachmentType); ok && mt.ShowInRest {
				newMediaController(site, mt, rs.Names()).register(rs, ns)
			}
		}
	}
	(&typesController{site: site}).register(rs, ns)
	(&statusesController{site: site}).register(rs, ns)
	registerTaxonomies(rs, site, ns)
	newUsersController(site, rs.Names()).register(rs, ns)
	newAppPasswordsController(site, rs.Names()).register(rs, ns)
	newSessionsController(site, rs.Names()).register(rs, ns)
	newCommentsController(site, rs.Names()).register(rs, ns)
	(&settingsController{site: site}).register(rs, ns)
}

// apiError turns a domain error into the interface's error, resolving the
// authorization-required status for the request.
func apiError(r *rest.Request, err error) error {
	var ce *content.Error
	if errors.As(err, &ce) {
		var e *rest.Error
		if ce.Status == 0 {
			e = rest.AuthError(r, ce.Code, ce.Message)
		} else {
			e = rest.NewError(ce.Code, ce.Status, ce.Message)
		}
		for k, v := range ce.Data {
			e = e.WithData(k, v)
		}
		e.Cause = ce.Cause
		return e
	}
	return err
}

// cannotDelete is the answer to a delete that failed: a domain rule's
// error as the rule says, anything else rest_cannot_delete (500) keeping
// err as its cause, so that the error boundary logs it and answers a
// store outage with 503.
func cannotDelete(r *rest.Request, msg string, err error) error {
	var ce *content.Error
	if errors.As(err, &ce) {
		return apiError(r, err)
	}
	return rest.NewError("rest_cannot_delete", 500, msg).WithCause(err)
}

// contextArg is the `context` parameter every read endpoint declares.
func contextArg(def string) *rest.Arg {
	return &rest.Arg{
		Name:        "context",
		Description: "Scope under which the request is made; determines fields present in response.",
		Type:        "string",
		Enum:        []string{"view", "embed", "edit"},
		Default:     def,
	}
}

// requestContext returns the schema context of the request's `context`
// parameter (view by default).
func requestContext(r *rest.Request) schema.Context {
	c, ok := schema.ParseContext(r.ContextName())
	if !ok {
		return schema.View
	}
	return c
}

// collectionArgs are the paging and search parameters shared by every
// paged collection.
func collectionArgs() []*rest.Arg {
	return []*rest.Arg{
		contextArg("view"),
		{
			Name: "page", Description: "Current page of the collection.",
			Type: "integer", Default: int64(1), Minimum: rest.Int(1), Sanitize: rest.AbsInt,
		},
		{
			Name: "per_page", Description: "Maximum number of items to be returned in result set.",
			Type: "integer", Default: int64(10), Minimum: rest.Int(1), Maximum: rest.Int(100), Sanitize: rest.AbsInt,
		},
		{
			Name: "search", Description: "Limit results to those matching a string.",
			Type: "string", MaxLength: content.MaxSearchLength,
		},
	}
}

// invalidParam is the rest_invalid_param error for one parameter.
func invalidParam(name, reason string) error {
	return &rest.Error{
		Code:    "rest_invalid_param",
		Message: "Invalid parameter(s): " + name,
		Status:  400,
		Data:    map[string]any{"params": map[string]any{name: reason}},
	}
}
