package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// terminalPrompt asks for a password on a terminal without echoing it; ok
// is false when the command has no terminal to ask on. Tests replace it.
var terminalPrompt = func(cmd *cobra.Command, prompt string) (pw string, ok bool, err error) {
	in, isFile := cmd.InOrStdin().(*os.File)
	if !isFile || !term.IsTerminal(int(in.Fd())) {
		return "", false, nil
	}
	fmt.Fprint(cmd.ErrOrStderr(), prompt)
	b, err := term.ReadPassword(int(in.Fd()))
	fmt.Fprintln(cmd.ErrOrStderr())
	if err != nil {
		return "", true, fmt.Errorf("read password: %w", err)
	}
	return string(b), true, nil
}

// readNewPassword gets a new account password for a command: the first
// line of standard input with --password-stdin, else asked twice on the
// terminal. It checks the password's length.
func readNewPassword(cmd *cobra.Command, fromStdin bool) (string, error) {
	var pw string
	if fromStdin {
		line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read password from standard input: %w", err)
		}
		pw = strings.TrimRight(line, "\r\n")
		if pw == "" {
			return "", errors.New("--password-stdin: standard input has no password on its first line")
		}
	} else {
		first, ok, err := terminalPrompt(cmd, "New password: ")
		if err != nil {
			return "", err
		}
		if !ok {
			return "", errors.New("no terminal to ask for the password on: pipe it in with --password-stdin")
		}
		if err := auth.CheckNewPassword(first); err != nil {
			return "", err
		}
		again, _, err := terminalPrompt(cmd, "Password again: ")
		if err != nil {
			return "", err
		}
		if again != first {
			return "", errors.New("the two passwords do not match")
		}
		pw = first
	}
	if err := auth.CheckNewPassword(pw); err != nil {
		return "", err
	}
	return pw, nil
}

// withSite is withStore with the domain layer over the store, so that a
// command follows the same rules as the API (sessions ended on a new
// password, posts reassigned in one transaction).
func withSite(ctx context.Context, f *siteFlags, fn func(*content.Site) error) error {
	cfg, err := f.config()
	if err != nil {
		return err
	}
	st, err := server.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	site, err := content.NewSite(st, cfg)
	if err != nil {
		return err
	}
	if err := fn(site); err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return fmt.Errorf("close database: %w", err)
	}
	return nil
}

// userByLogin loads the user with login, with an error that names it when
// there is none.
func userByLogin(ctx context.Context, site *content.Site, login string) (*store.User, error) {
	if login == "" {
		return nil, errors.New("--login is required")
	}
	u, err := site.Storage().GetUserByLogin(ctx, login)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("no user with login %q (see `user list`)", login)
	}
	if err != nil {
		return nil, fmt.Errorf("look up user: %w", err)
	}
	return u, nil
}

// operator is the user the command line acts as: an administrator of the
// site (whoever can run these commands can read the database anyway).
func operator(site *content.Site) *auth.User {
	return site.UserOf(&store.User{Roles: []string{"administrator"}})
}

func newUserSetPasswordCmd() *cobra.Command {
	var (
		f       siteFlags
		login   string
		pwStdin bool
	)
	cmd := &cobra.Command{
		Use:   "set-password",
		Short: "Set a user's account password (asked for, or read with --password-stdin)",
		Long: `Set the account password of the user with --login: asked for twice on the
terminal (not shown), or read from the first line of standard input with
--password-stdin. It needs at least 12 characters. Every browser session
of the user ends; application passwords keep working. This is also how a
lost password is replaced: Folio sends no email.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withSite(cmd.Context(), &f, func(site *content.Site) error {
				u, err := userByLogin(cmd.Context(), site, login)
				if err != nil {
					return err
				}
				pw, err := readNewPassword(cmd, pwStdin)
				if err != nil {
					return err
				}
				if _, err := site.UpdateUser(cmd.Context(), operator(site), u, content.UserInput{Password: &pw}, nil); err != nil {
					return fmt.Errorf("set password: %w", err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "password of %s set; their browser sessions were signed out\n", u.Login)
				return nil
			})
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringVar(&login, "login", "", "login of the user (required)")
	cmd.Flags().BoolVar(&pwStdin, "password-stdin", false, "read the password from the first line of standard input")
	_ = cmd.MarkFlagRequired("login")
	return cmd
}

// countAdmins counts the site's administrators.
func countAdmins(ctx context.Context, site *content.Site) (int64, error) {
	_, n, err := site.ListUsers(ctx, store.UserQuery{Roles: []string{"administrator"}, Limit: 1})
	if err != nil {
		return 0, fmt.Errorf("count administrators: %w", err)
	}
	return n, nil
}

func newUserDeleteCmd() *cobra.Command {
	var (
		f               siteFlags
		login, reassign string
	)
	cmd := &cobra.Command{
		Use:   "delete",
		Short: "Delete a user, giving their posts to another with --reassign",
		Long: `Delete the user with --login. A user who wrote posts (of any status) is
deleted only with --reassign LOGIN, which gives every one of those posts to
that user in the same transaction. The site's only administrator cannot be
deleted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			return withSite(ctx, &f, func(site *content.Site) error {
				u, err := userByLogin(ctx, site, login)
				if err != nil {
					return err
				}
				var to *store.User
				if reassign != "" {
					if to, err = userByLogin(ctx, site, reassign); err != nil {
						return fmt.Errorf("--reassign: %w", err)
					}
					if to.ID == u.ID {
						return errors.New("--reassign names the user being deleted")
					}
				}
				if contains(u.Roles, "administrator") {
					n, err := countAdmins(ctx, site)
					if err != nil {
						return err
					}
					if n <= 1 {
						return fmt.Errorf("%s is the site's only administrator; make another user administrator first (user role --login LOGIN --role administrator)", u.Login)
					}
				}
				_, posts, err := site.ListPosts(ctx, store.PostQuery{Authors: []int64{u.ID}, Limit: 1})
				if err != nil {
					return fmt.Errorf("count posts: %w", err)
				}
				if posts > 0 && to == nil {
					return fmt.Errorf("%s wrote %d posts; give them to another user with --reassign LOGIN", u.Login, posts)
				}
				var toID int64
				if to != nil {
					toID = to.ID
				}
				if err := site.DeleteUser(ctx, u, toID); err != nil {
					return err
				}
				if to != nil && posts > 0 {
					fmt.Fprintf(cmd.OutOrStdout(), "deleted %s; %d posts now belong to %s\n", u.Login, posts, to.Login)
				} else {
					fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", u.Login)
				}
				return nil
			})
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringVar(&login, "login", "", "login of the user to delete (required)")
	cmd.Flags().StringVar(&reassign, "reassign", "", "login of the user who gets the deleted user's posts")
	_ = cmd.MarkFlagRequired("login")
	return cmd
}

func newUserRoleCmd() *cobra.Command {
	var (
		f           siteFlags
		login, role string
	)
	cmd := &cobra.Command{
		Use:   "role",
		Short: "Change a user's role",
		Long: `Give the user with --login the role --role (` + strings.Join(userRoles, ", ") + `),
replacing the roles they had. The site's only administrator keeps that
role.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkRole(role); err != nil {
				return err
			}
			ctx := cmd.Context()
			return withSite(ctx, &f, func(site *content.Site) error {
				u, err := userByLogin(ctx, site, login)
				if err != nil {
					return err
				}
				if contains(u.Roles, "administrator") && role != "administrator" {
					n, err := countAdmins(ctx, site)
					if err != nil {
						return err
					}
					if n <= 1 {
						return fmt.Errorf("%s is the site's only administrator; make another user administrator first", u.Login)
					}
				}
				in := content.UserInput{Roles: []string{role}, RolesSet: true}
				if _, err := site.UpdateUser(ctx, operator(site), u, in, nil); err != nil {
					return fmt.Errorf("change role: %w", err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s is now %s\n", u.Login, role)
				return nil
			})
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringVar(&login, "login", "", "login of the user (required)")
	cmd.Flags().StringVar(&role, "role", "", "new role: "+strings.Join(userRoles, ", ")+" (required)")
	_ = cmd.MarkFlagRequired("login")
	_ = cmd.MarkFlagRequired("role")
	return cmd
}
