package cli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store"
	"github.com/spf13/cobra"
)

// userRoles are the roles `user create` accepts.
var userRoles = []string{"administrator", "editor", "author", "contributor", "subscriber"}

func newUserCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "user",
		Short: "Manage users and application passwords",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newUserCreateCmd(), newUserAppPasswordCmd(), newUserListCmd(),
		newUserSetPasswordCmd(), newUserDeleteCmd(), newUserRoleCmd())
	return cmd
}

// withStore resolves the configuration, opens (and migrates) the store,
// runs fn and closes the store.
func withStore(ctx context.Context, f *siteFlags, fn func(store.Store) error) (err error) {
	cfg, err := f.config()
	if err != nil {
		return err
	}
	st, err := server.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := st.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close database: %w", cerr)
		}
	}()
	return fn(st)
}

func newUserCreateCmd() *cobra.Command {
	var (
		f                            siteFlags
		login, email, password, role string
		pwStdin                      bool
	)
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a user and print its id",
		Long: `Create a user and print its id. Without --password the password is asked
for on the terminal (twice, not shown), or read from the first line of
standard input with --password-stdin; a password on the command line lands
in the shell's history. Passwords need at least 12 characters.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkUserFields(login, email, role); err != nil {
				return err
			}
			if !cmd.Flags().Changed("password") {
				var err error
				if password, err = readNewPassword(cmd, pwStdin); err != nil {
					return err
				}
			} else if pwStdin {
				return errors.New("give --password or --password-stdin, not both")
			}
			u, err := newUser(login, email, password, role)
			if err != nil {
				return err
			}
			return withStore(cmd.Context(), &f, func(st store.Store) error {
				if err := createUser(cmd.Context(), st, u); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), u.ID)
				return nil
			})
		},
	}
	f.add(cmd, false)
	fl := cmd.Flags()
	fl.StringVar(&login, "login", "", "login name (required)")
	fl.StringVar(&email, "email", "", "email address (required)")
	fl.StringVar(&password, "password", "", "account password, at least 12 characters (asked for when not given)")
	fl.BoolVar(&pwStdin, "password-stdin", false, "read the password from the first line of standard input")
	fl.StringVar(&role, "role", "", "role: "+strings.Join(userRoles, ", ")+" (required)")
	for _, n := range []string{"login", "email", "role"} {
		_ = cmd.MarkFlagRequired(n)
	}
	return cmd
}

// checkUserFields checks the login, email and role of `user create`.
func checkUserFields(login, email, role string) error {
	if err := validLogin(login); err != nil {
		return err
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || a.Name != "" {
		return fmt.Errorf("invalid email address %q", email)
	}
	return checkRole(role)
}

// checkRole refuses a role `user create` and `user role` do not know.
func checkRole(role string) error {
	if !contains(userRoles, role) {
		return fmt.Errorf("unknown role %q (want one of %s)", role, strings.Join(userRoles, ", "))
	}
	return nil
}

// newUser validates the inputs of `user create` and returns the record to
// insert, with the password hashed.
func newUser(login, email, password, role string) (*store.User, error) {
	if err := checkUserFields(login, email, role); err != nil {
		return nil, err
	}
	if err := auth.CheckNewPassword(password); err != nil {
		return nil, err
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return nil, fmt.Errorf("hash password: %w", err)
	}
	return &store.User{
		Login:       login,
		Email:       email,
		PassHash:    hash,
		DisplayName: login,
		Nickname:    login,
		Nicename:    slugify(login),
		Registered:  time.Now().UTC().Truncate(time.Second),
		Roles:       []string{role},
	}, nil
}

// createUser inserts u, refusing a login or email that is taken and making
// the nicename unique.
func createUser(ctx context.Context, st store.Store, u *store.User) error {
	if _, err := st.GetUserByLogin(ctx, u.Login); err == nil {
		return fmt.Errorf("a user with login %q already exists", u.Login)
	} else if !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("look up login: %w", err)
	}
	if _, err := st.GetUserByEmail(ctx, u.Email); err == nil {
		return fmt.Errorf("a user with email %q already exists", u.Email)
	} else if !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("look up email: %w", err)
	}
	base := u.Nicename
	for n := 2; ; n++ {
		_, err := st.GetUserBySlug(ctx, u.Nicename)
		if errors.Is(err, store.ErrNotFound) {
			break
		}
		if err != nil {
			return fmt.Errorf("look up nicename: %w", err)
		}
		u.Nicename = fmt.Sprintf("%s-%d", base, n)
	}
	if err := st.InsertUser(ctx, u); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("a user with login %q or email %q already exists: %w", u.Login, u.Email, err)
		}
		return fmt.Errorf("create user: %w", err)
	}
	return nil
}

// validLogin accepts the characters the original allows in logins.
func validLogin(login string) error {
	if login == "" || len(login) > 60 {
		return fmt.Errorf("login %q must be 1 to 60 characters", login)
	}
	for _, r := range login {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(" _.-@", r)
		if !ok {
			return fmt.Errorf("login %q may only contain letters, digits, spaces and _ . - @", login)
		}
	}
	if strings.TrimSpace(login) != login {
		return fmt.Errorf("login %q must not start or end with a space", login)
	}
	return nil
}

// slugify turns a login into a nicename the way the original's
// sanitize_title does for plain ASCII: lower case, dots and spaces become
// dashes, other punctuation goes, dashes collapse.
func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_':
			b.WriteRune(r)
			dash = false
		case r == '-' || r == ' ' || r == '.':
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if out == "" {
		return "user"
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func newUserAppPasswordCmd() *cobra.Command {
	var (
		f           siteFlags
		login, name string
	)
	cmd := &cobra.Command{
		Use:   "app-password",
		Short: "Create an application password and print it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if name == "" {
				return errors.New("name must not be empty")
			}
			return withStore(cmd.Context(), &f, func(st store.Store) error {
				plain, err := createAppPassword(cmd.Context(), st, login, name)
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), plain)
				return nil
			})
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringVar(&login, "login", "", "login of the user (required)")
	cmd.Flags().StringVar(&name, "name", "cli", "name of the application password")
	_ = cmd.MarkFlagRequired("login")
	return cmd
}

// createAppPassword stores a new application password for the user with
// login and returns its plain text.
func createAppPassword(ctx context.Context, st store.Store, login, name string) (string, error) {
	u, err := st.GetUserByLogin(ctx, login)
	if errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("no user with login %q", login)
	}
	if err != nil {
		return "", fmt.Errorf("look up user: %w", err)
	}
	plain, hash, err := auth.GenerateAppPassword()
	if err != nil {
		return "", fmt.Errorf("generate application password: %w", err)
	}
	id, err := newUUID()
	if err != nil {
		return "", err
	}
	ap := &store.AppPassword{
		UUID:    id,
		UserID:  u.ID,
		Name:    name,
		Hash:    hash,
		Created: time.Now().UTC().Truncate(time.Second),
	}
	if err := st.InsertAppPassword(ctx, ap); err != nil {
		return "", fmt.Errorf("store application password: %w", err)
	}
	return plain, nil
}

// newUUID returns a random (version 4) UUID.
func newUUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate uuid: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

func newUserListCmd() *cobra.Command {
	var f siteFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List users",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd.Context(), &f, func(st store.Store) error {
				users, err := st.ListUsers(cmd.Context(), store.UserQuery{OrderBy: "id", Order: "asc"})
				if err != nil {
					return fmt.Errorf("list users: %w", err)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tLOGIN\tEMAIL\tROLES")
				for _, u := range users {
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", u.ID, u.Login, u.Email, strings.Join(u.Roles, ","))
				}
				return tw.Flush()
			})
		},
	}
	f.add(cmd, false)
	return cmd
}
