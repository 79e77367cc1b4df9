// Package store declares the storage interfaces Folio's domain layer uses and
// the records they exchange. The implementation on SQL databases is written
// once in store/sqlstore; store/sqlite and store/postgres give it their
// dialect and connections and pass the same test suite (store/storetest).
//
// The interfaces are split by consumer: posts, users, application passwords
// and site options. Handlers never see this package; the content and auth
// packages do.
package store

import (
	"context"
	"errors"
	"time"
)

// ErrNotFound is returned when a record asked for by id or key does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrConflict is returned when a unique constraint (login, email, slug) fails.
var ErrConflict = errors.New("store: conflict")

// ErrUnavailable is wrapped by errors that come from the database being
// unreachable (down, restarting) rather than from the request; the API
// answers them with 503.
var ErrUnavailable = errors.New("store: database unavailable")

// ErrBusy is wrapped by errors that come from another writer holding the
// database locked for longer than the store waits for it.
var ErrBusy = errors.New("store: database busy")

// Unavailable reports whether err comes from the database being
// unreachable (ErrUnavailable: down, restarting, connection lost) or held
// locked by another writer (ErrBusy): conditions to retry after a pause,
// which the API answers with 503 and Retry-After.
func Unavailable(err error) bool {
	return errors.Is(err, ErrUnavailable) || errors.Is(err, ErrBusy)
}

// RetryAfterSeconds is the pause, in seconds, that clients answered 503
// because the database is unavailable or busy are told to wait
// (Retry-After).
const RetryAfterSeconds = 5

// Post is one row of the posts table: posts, pages, attachments, custom post
// types and (later) revisions share it.
//
// Dates follow the original's model: Date is the site-local wall clock
// (stored without offset), DateGMT the same instant in UTC. A zero DateGMT is
// the "all-zero" date of unscheduled drafts and is output as null.
type Post struct {
	ID            int64
	Type          string
	Status        string
	Author        int64
	Parent        int64
	MenuOrder     int64
	Title         string
	Content       string
	Excerpt       string
	Slug          string
	Password      string
	GUID          string
	Date          time.Time
	DateGMT       time.Time
	Modified      time.Time
	ModifiedGMT   time.Time
	CommentStatus string
	PingStatus    string
	Sticky        bool
	Format        string
	Template      string
	FeaturedMedia int64
	MimeType      string
	CommentCount  int64
	// PreTrashStatus holds the status a post had before it was trashed.
	PreTrashStatus string
}

// PostQuery selects posts for a collection. Zero values mean "no filter".
type PostQuery struct {
	Types []string
	// Statuses limits the result to these statuses; empty means any status.
	Statuses []string
	// Visibility is applied on top of Statuses so that the query returns
	// only rows the caller may read; nil means no restriction.
	Visibility *Visibility

	// Search keeps posts that contain every word of it in their title,
	// excerpt or content. The excerpt and content of a password-protected
	// post are searched only when the post passes SearchProtected or its
	// password equals SearchPassword; otherwise only its title is, so that
	// a caller who may not read a protected post's text cannot learn it
	// through search.
	Search          string
	SearchProtected *Visibility
	SearchPassword  string
	After           *time.Time // exclusive, on the local date
	Before          *time.Time // exclusive, on the local date
	Authors         []int64
	AuthorExclude   []int64
	Include         []int64
	Exclude         []int64
	// Parents limits to these parent ids when ParentsSet is true (so that
	// an explicit empty list or [0] can be told from "not given").
	Parents       []int64
	ParentsSet    bool
	ParentExclude []int64
	Slugs         []string
	MenuOrder     *int64
	MimeTypes     []string // exact mime types
	MimePrefixes  []string // e.g. "image/" for media_type=image
	Year          int
	Month         int
	Day           int
	// Terms keeps posts that match every filter (AND between filters).
	Terms []TermFilter
	// ParentVisibility, when set, also hides rows of status inherit whose
	// parent exists and is not visible under the Visibility of the
	// parent's type (keyed by type name; a type absent from the map hides
	// the row). It keeps media of private and draft posts private.
	ParentVisibility map[string]*Visibility

	// OrderBy is one of date, id, include, title, slug, menu_order,
	// modified, parent, author, relevance (a search's best matches first,
	// then date order; date order without a search). Order is "asc" or
	// "desc".
	OrderBy string
	Order   string
	// StickyFirst floats sticky posts to the top of the first page.
	StickyFirst bool

	Offset int
	Limit  int // 0 means no limit
}

// Visibility restricts a post query to what one caller may read.
// A row passes when its status is in Public, or its author is Owner (when
// Owner is non-zero) and its status is in OwnStatuses, or its status is in
// OthersStatuses.
type Visibility struct {
	Public         []string
	Owner          int64
	OwnStatuses    []string
	OthersStatuses []string
}

// PostIDReserver is a Store that can give a new post its id before
// InsertPost, so that what is made of the id (a GUID, a slug) goes in with
// the insert instead of an update after it.
type PostIDReserver interface {
	// ReservePostID returns an id that no post has and no other post will
	// get, for a post InsertPost then inserts; 0 where the store hands out
	// ids only on insert.
	ReservePostID(ctx context.Context) (int64, error)
}

// PostIDPrefetcher is a PostIDReserver that can be told, inside a write
// transaction, that a new post's id will be wanted: it then asks for one
// with the transaction's next statement, and the ReservePostID after it
// costs no round trip of its own.
type PostIDPrefetcher interface {
	// PrefetchPostID asks ahead for the id the transaction's next
	// ReservePostID returns; nothing where it cannot.
	PrefetchPostID(ctx context.Context) error
}

// PostTermsLinker is a Store whose SetPostTerms can also tell which terms
// it linked: a new post's terms are then known without reading them back.
type PostTermsLinker interface {
	// SetPostTermsLinked is SetPostTerms that also returns the ids of
	// the terms the post was not linked to before and now is, ascending.
	SetPostTermsLinked(ctx context.Context, postID int64, taxonomy string, ids []int64) ([]int64, error)
}

// NewPostTermsLinker is a PostTermsLinker that links the terms of a post
// without reading the post first, for the transaction that has just
// inserted it: the caller tells whether the post is published, and the
// post has no terms yet.
type NewPostTermsLinker interface {
	// LinkNewPostTerms links the new post postID, published or not, to
	// the terms of ids in taxonomy, counting them when it is published,
	// and sets *linked to the ids it linked, ascending (those of ids
	// that are terms of taxonomy): at once, or, where the store sends
	// the statement with a later one of the transaction (PostgreSQL's
	// pipelines), by the time the transaction has committed. A post is
	// linked once per taxonomy this way.
	LinkNewPostTerms(ctx context.Context, postID int64, published bool, taxonomy string, ids []int64, linked *[]int64) error
}

// SearchPreparer is a Store that can split a post's text into its search
// words ahead of the write that stores it, outside the write transaction
// (on SQLite every write waits for the one writer, and the words are
// split while it holds it otherwise). It is a hint: what the store
// indexes is always the text it stores.
type SearchPreparer interface {
	PrepareSearch(title, excerpt, content string)
}

// PostStore is what the content layer needs to keep posts.
type PostStore interface {
	GetPost(ctx context.Context, id int64) (*Post, error)
	// GetPosts loads many posts by id in one query; missing ids are absent
	// from the map.
	GetPosts(ctx context.Context, ids []int64) (map[int64]*Post, error)
	ListPosts(ctx context.Context, q PostQuery) ([]*Post, error)
	CountPosts(ctx context.Context, q PostQuery) (int64, error)
	// InsertPost stores p and sets p.ID. p.ID must be 0, or an id the
	// store's ReservePostID handed out (PostIDReserver).
	InsertPost(ctx context.Context, p *Post) error
	// UpdatePost writes every column of p except CommentCount, which only
	// the CommentStore's writes change.
	UpdatePost(ctx context.Context, p *Post) error
	DeletePost(ctx context.Context, id int64) error
	// SlugsTaken returns which of slugs another post (id != exceptID) of
	// one of the given types (any when empty), under parent (when
	// parent >= 0) and with a status not in draft/pending/auto-draft, uses,
	// in one query.
	SlugsTaken(ctx context.Context, slugs []string, types []string, parent int64, exceptID int64) (map[string]bool, error)
	// FreeSlug returns the slug a post of one of types (any when empty)
	// under parent (when parent >= 0) gets for base: base itself when no
	// other post (id != exceptID) takes it in the sense of SlugsTaken and it
	// is not reserved, else base-n for the least n >= 2 (in decimal,
	// without leading zeros) that none takes. It walks the taken suffixes
	// in the slug index up to the first gap instead of asking for each
	// candidate.
	FreeSlug(ctx context.Context, base string, types []string, parent, exceptID int64, reserved bool) (string, error)
	// AuthorsWithPublished reports, for every author id asked, whether the
	// author has at least one post with status publish of the given types
	// (any type when empty). It stops at the first such post per author, so
	// its cost does not grow with the number of posts.
	AuthorsWithPublished(ctx context.Context, authors []int64, types []string) (map[int64]bool, error)
}

// User is a site account.
type User struct {
	ID          int64
	Login       string
	Email       string
	PassHash    string
	DisplayName string
	Nicename    string // the slug
	FirstName   string
	LastName    string
	Nickname    string
	URL         string
	Description string
	Registered  time.Time
	Roles       []string
	// Caps are capabilities granted directly to the user (not by a role),
	// name → granted.
	Caps map[string]bool
}

// UserQuery selects users for a collection.
type UserQuery struct {
	// Search keeps users whose name, slug, URL or id matches it, and also
	// login or email when SearchAccounts is set (callers with list_users).
	Search         string
	SearchAccounts bool
	Include        []int64
	Exclude        []int64
	Slugs          []string
	Roles          []string
	// HasPublishedOfTypes restricts to users with at least one published
	// post of one of these types.
	HasPublishedOfTypes []string
	OrderBy             string // id, include, name, registered_date, slug, email
	Order               string
	Offset              int
	Limit               int
}

// UserStore keeps users.
type UserStore interface {
	GetUser(ctx context.Context, id int64) (*User, error)
	GetUsers(ctx context.Context, ids []int64) (map[int64]*User, error)
	GetUserByLogin(ctx context.Context, login string) (*User, error)
	GetUserByEmail(ctx context.Context, email string) (*User, error)
	GetUserBySlug(ctx context.Context, slug string) (*User, error)
	ListUsers(ctx context.Context, q UserQuery) ([]*User, error)
	CountUsers(ctx context.Context, q UserQuery) (int64, error)
	// InsertUser stores u (u.ID must be 0) and sets u.ID; ErrConflict when
	// the login, email or nicename is taken.
	InsertUser(ctx context.Context, u *User) error
	UpdateUser(ctx context.Context, u *User) error
	DeleteUser(ctx context.Context, id int64) error
	// CountUsersWithRole counts users holding role.
	CountUsersWithRole(ctx context.Context, role string) (int64, error)
}

// AppPassword is one application password of a user. Only its hash is kept.
type AppPassword struct {
	ID       int64
	UUID     string
	UserID   int64
	Name     string
	Hash     string
	Created  time.Time
	LastUsed time.Time // zero when never used
	LastIP   string
}

// AppPasswordStore keeps application passwords.
type AppPasswordStore interface {
	InsertAppPassword(ctx context.Context, p *AppPassword) error
	ListAppPasswords(ctx context.Context, userID int64) ([]*AppPassword, error)
	DeleteAppPassword(ctx context.Context, userID int64, uuid string) error
	// TouchAppPassword records a successful use.
	TouchAppPassword(ctx context.Context, id int64, at time.Time, ip string) error
}

// UserAppPasswordsStore is an AppPasswordStore that loads a user, the
// user's application passwords and a sign-in counter together, in one
// read: what Basic authentication checks on every request that carries
// it.
//
// What that read returns moves the store's authentication generation on
// whenever it changes, in this process or any other: a user added,
// changed or removed, a role or capability granted or taken, an
// application password added, renamed or revoked (not its recorded last
// use). A reader that kept the user and passwords of generation g may use
// them again while AuthGeneration still says g.
type UserAppPasswordsStore interface {
	// GetUserAppPasswords returns the user whose login is login, ASCII
	// case-insensitively, the user's application passwords, oldest
	// first, the login counter of counterKey as LoginCounters reads it
	// (Key set, zero otherwise, when there is none or counterKey is
	// "") and the authentication generation they were read at;
	// ErrNotFound, and no counter, when there is no such user.
	GetUserAppPasswords(ctx context.Context, login, counterKey string) (UserAppPasswords, error)
	// AuthGeneration returns the authentication generation, the site
	// generation and the login counter of counterKey (as
	// GetUserAppPasswords), in one read.
	AuthGeneration(ctx context.Context, counterKey string) (Generations, LoginCounter, error)
}

// Generations are what a UserAppPasswordsStore read tells of the store's
// state alongside the sign-in data.
type Generations struct {
	// Auth is the authentication generation (UserAppPasswordsStore).
	Auth int64
	// Site is the site generation: it moves on, in this process or any
	// other, whenever an option (the site's settings among them) or a
	// webhook is added, changed or removed. What kept the options or the
	// webhooks read at or after generation g may use them while a
	// request's read still says g (WithSiteGeneration).
	Site int64
}

// UserAppPasswords is what UserAppPasswordsStore.GetUserAppPasswords
// reads.
type UserAppPasswords struct {
	User    *User
	Apps    []*AppPassword
	Counter LoginCounter
	// Generation is the authentication generation User and Apps are of.
	Generation int64
	// Site is the site generation read with them (Generations.Site).
	Site int64
}

// OptionStore keeps site options (key → value), e.g. the shared secret
// every node uses to sign nonces.
type OptionStore interface {
	GetOption(ctx context.Context, name string) (string, error) // ErrNotFound when unset
	SetOption(ctx context.Context, name, value string) error
	// AddOption sets name only when it is unset and returns the stored value
	// (the existing one when another writer won).
	AddOption(ctx context.Context, name, value string) (string, error)
}

// Term is one term of a taxonomy: a tag, a category or a term of a custom
// taxonomy. Count is the number of published posts using it.
type Term struct {
	ID          int64
	Taxonomy    string
	Name        string
	Slug        string
	Description string
	Parent      int64
	Count       int64
}

// TermFilter keeps posts having at least one of the given terms of one
// taxonomy, named by id or by slug. IncludeChildren also accepts the
// descendants of those terms.
type TermFilter struct {
	Taxonomy        string
	IDs             []int64
	Slugs           []string
	IncludeChildren bool
}

// TermQuery selects the terms of one taxonomy for a collection. Zero values
// mean "no filter".
type TermQuery struct {
	Taxonomy string
	// Search keeps terms whose name or slug contains it.
	Search  string
	Include []int64
	Exclude []int64
	Slugs   []string
	// Names keeps terms with one of these names, compared without case.
	Names []string
	// Parent limits to children of Parent when ParentSet is true (0 means
	// top-level terms).
	Parent    int64
	ParentSet bool
	// HideEmpty drops terms with a zero count; with Hierarchical a term is
	// kept when one of its descendants has a non-zero count.
	HideEmpty    bool
	Hierarchical bool
	// OrderBy is one of id, include, name (default), slug, term_group,
	// description, count. Order is "asc" (default) or "desc".
	OrderBy string
	Order   string
	Offset  int
	Limit   int // 0 means no limit
}

// TermStore keeps taxonomy terms and their relationships with posts. Term
// counts (published posts per term) are kept right inside the writing
// transaction by every write of this interface and by PostStore's
// UpdatePost and DeletePost; a store may apply SetPostTerms' changes to
// them only just before the transaction commits (PostgreSQL does, so that
// a popular term's row is locked for the commit alone), so read them
// outside the transaction that changes them.
type TermStore interface {
	// GetTerm loads one term; ErrNotFound when there is none.
	GetTerm(ctx context.Context, id int64) (*Term, error)
	// GetTerms loads many terms by id in one query; missing ids are absent.
	GetTerms(ctx context.Context, ids []int64) (map[int64]*Term, error)
	ListTerms(ctx context.Context, q TermQuery) ([]*Term, error)
	CountTerms(ctx context.Context, q TermQuery) (int64, error)
	// InsertTerm stores t (t.ID must be 0) and sets t.ID; ErrConflict when
	// the slug is taken in the taxonomy.
	InsertTerm(ctx context.Context, t *Term) error
	// UpdateTerm writes the name, slug, description and parent of t;
	// ErrConflict when the slug is taken, ErrNotFound when t is missing.
	UpdateTerm(ctx context.Context, t *Term) error
	// DeleteTerm removes a term and its relationships and moves its
	// children to its parent. When reassign is not 0, every post that is
	// left without a term of the taxonomy gets the term reassign.
	DeleteTerm(ctx context.Context, id int64, reassign int64) error
	// SetPostTerms replaces the terms of a post in one taxonomy with ids;
	// ids that are missing or of another taxonomy are skipped.
	SetPostTerms(ctx context.Context, postID int64, taxonomy string, ids []int64) error
	// PostTerms loads the terms of many posts in the given taxonomies (all
	// when empty) in one query: per post, in name order.
	PostTerms(ctx context.Context, postIDs []int64, taxonomies []string) (map[int64][]*Term, error)
	// PostTermsUncounted is PostTerms without the terms' counts (every
	// Count is 0): what a post's term ids and links need, cheaper where a
	// count is summed when read.
	PostTermsUncounted(ctx context.Context, postIDs []int64, taxonomies []string) (map[int64][]*Term, error)
	// RecountTerms recomputes the counts of the given terms (every term
	// when ids is nil) from the published posts using them.
	RecountTerms(ctx context.Context, ids []int64) error
}

// Store is the whole storage interface. Consumers should depend on the
// narrow interfaces above; Store exists for wiring and transactions.
type Store interface {
	PostStore
	UserStore
	AppPasswordStore
	OptionStore
	SessionStore
	RateLimitStore
	RetentionStore
	TermStore
	CommentStore
	MediaStore
	PostMetaStore
	OutboxStore
	ImportMapStore
	// Tx runs fn inside one transaction; fn's store sees the writes made
	// so far. The transaction commits (durably) when fn returns nil.
	Tx(ctx context.Context, fn func(Store) error) error
	// Version returns a counter that increases on every committed write;
	// caches key on it.
	Version(ctx context.Context) (int64, error)
	Close() error
}

// Committer is implemented by stores that can run code once a write
// transaction has committed: the store a Tx hands to its fn registers the
// code for after the commit; a store outside a transaction runs it at once.
type Committer interface {
	// AfterCommit registers fn to run once the transaction has committed;
	// fn never runs when the transaction rolls back. fn runs on the
	// committing goroutine and must not block.
	AfterCommit(fn func())
}

// AfterCommit runs fn once the transaction s belongs to has committed (see
// Committer). When s cannot say (a store that is not a Committer) fn runs
// now.
func AfterCommit(s Store, fn func()) {
	if c, ok := s.(Committer); ok {
		c.AfterCommit(fn)
		return
	}
	fn()
}

// Locker is implemented by stores whose write transactions run side by
// side (PostgreSQL): a transaction that reads something and then writes
// what it decided from it (a free slug, a login nobody has) first locks a
// key naming that thing, so that two transactions deciding about the same
// thing run one after the other while the rest run in parallel.
type Locker interface {
	// LockKeys locks each of keys ("post-slug:hello", "user-login:ann")
	// until the write transaction the store is bound to ends, waiting for
	// a transaction that holds one of them. Keys are locked in one sorted
	// order, so two calls never wait for each other in a cycle. A store
	// bound to no transaction locks nothing.
	LockKeys(ctx context.Context, keys ...string) error
}

// LockKeys locks keys for the rest of the write transaction s is bound
// to (see Locker); with a store that cannot (SQLite, whose single writer
// already runs write transactions one at a time) it does nothing.
func LockKeys(ctx context.Context, s Store, keys ...string) error {
	if l, ok := s.(Locker); ok && len(keys) > 0 {
		return l.LockKeys(ctx, keys...)
	}
	return nil
}

// CompareNames orders two names as SQLite's NOCASE collation (and
// PostgreSQL's folio_nocase under the "C" collation) do: byte by byte with
// the ASCII capitals folded to lower case, a prefix before the longer
// string. Terms are listed in this order of their names.
func CompareNames(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return int(x) - int(y)
		}
	}
	return len(a) - len(b)
}
