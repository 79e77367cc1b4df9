package auth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// wantThrottled fails t unless err is a *ThrottledError asking to wait
// want (when want is not zero); it returns the wait.
func wantThrottled(t *testing.T, err error, want time.Duration) time.Duration {
	t.Helper()
	var te *ThrottledError
	if !errors.As(err, &te) || !errors.Is(err, ErrLoginThrottled) {
		t.Fatalf("err = %v, want a ThrottledError", err)
	}
	if want != 0 && te.RetryAfter != want {
		t.Fatalf("RetryAfter = %v, want %v", te.RetryAfter, want)
	}
	return te.RetryAfter
}

func wantFailed(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrLoginFailed) {
		t.Fatalf("err = %v, want ErrLoginFailed", err)
	}
}

// counters returns the stored failures of keys.
func (e *sessionEnv) counters(t *testing.T, keys ...ThrottleKey) []int64 {
	t.Helper()
	cur, err := e.db.LoginCounters(context.Background(), names(keys))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int64, len(cur))
	for i, c := range cur {
		out[i] = c.Failures
	}
	return out
}

func TestThrottleRuleDelaysDoubleUpToTheCap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rule ThrottleRule
		n    int64
		want time.Duration
	}{
		{ThrottlePair, 0, 0},
		{ThrottlePair, 4, 0},
		{ThrottlePair, 5, 30 * time.Second},
		{ThrottlePair, 6, time.Minute},
		{ThrottlePair, 7, 2 * time.Minute},
		{ThrottlePair, 9, 8 * time.Minute},
		{ThrottlePair, 10, 15 * time.Minute},
		{ThrottlePair, 1 << 40, 15 * time.Minute},
		{ThrottleAccount, 19, 0},
		{ThrottleAccount, 20, time.Second},
		{ThrottleAccount, 21, 2 * time.Second},
		{ThrottleAccount, 40, 15 * time.Minute},
		{ThrottleAddress, 49, 0},
		{ThrottleAddress, 50, time.Second},
		{ThrottleAddress, 80, 5 * time.Minute},
	} {
		if got := tc.rule.Delay(tc.n); got != tc.want {
			t.Errorf("%+v.Delay(%d) = %v, want %v", tc.rule, tc.n, got, tc.want)
		}
	}
}

func TestSignInChecksAtMostTheAllowanceOfConcurrentWrongPasswords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		ip    func(i int) string
		allow int64
	}{
		// One address: the pair's allowance.
		{"one address", func(int) string { return "198.51.100.7" }, ThrottlePair.Free},
		// Thirty addresses: the account's allowance.
		{"thirty addresses", func(i int) string { return fmt.Sprintf("198.51.100.%d", i+1) }, ThrottleAccount.Free},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newSessionEnv(t)
			var failed, throttled atomic.Int64
			var wg sync.WaitGroup
			for i := range 30 {
				wg.Go(func() {
					_, err := e.signIn("ada", "wrong", tc.ip(i))
					switch {
					case errors.Is(err, ErrLoginFailed):
						failed.Add(1)
					case errors.Is(err, ErrLoginThrottled):
						throttled.Add(1)
					default:
						t.Errorf("attempt %d: %v", i, err)
					}
				})
			}
			wg.Wait()
			if got := e.checks.Load(); got != tc.allow || failed.Load() != tc.allow || throttled.Load() != 30-tc.allow {
				t.Fatalf("password checks = %d, failed = %d, throttled = %d; want %d checks of 30", got, failed.Load(), throttled.Load(), tc.allow)
			}
		})
	}
}

func TestSignInOwnerFromAnotherAddressWhileTheAttackersAddressWaits(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	for range ThrottlePair.Free {
		_, err := e.signIn("ada", "wrong", "203.0.113.66")
		wantFailed(t, err)
	}
	before := e.checks.Load()
	_, err := e.signIn("ada", "secret", "203.0.113.66")
	wantThrottled(t, err, ThrottlePair.Base)
	if e.checks.Load() != before {
		t.Errorf("the password of a throttled attempt was checked")
	}
	if _, err := e.signIn("ada", "secret", "192.0.2.10"); err != nil {
		t.Fatalf("owner from another address: %v", err)
	}
}

func TestSignInDelaysGrowThenLetTheNextAttemptThrough(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	const ip = "203.0.113.5"
	for range ThrottlePair.Free {
		_, err := e.signIn("ada", "wrong", ip)
		wantFailed(t, err)
	}
	// Each wait doubles; waiting it out always lets the next attempt be
	// checked.
	for n := ThrottlePair.Free; n < ThrottlePair.Free+4; n++ {
		want := ThrottlePair.Delay(n)
		_, err := e.signIn("ada", "wrong", ip)
		wantThrottled(t, err, want)
		e.clk.Advance(want - time.Second)
		_, err = e.signIn("ada", "wrong", ip)
		wantThrottled(t, err, time.Second)
		e.clk.Advance(time.Second)
		_, err = e.signIn("ada", "wrong", ip)
		wantFailed(t, err)
	}
	_, err := e.signIn("ada", "secret", ip)
	wantThrottled(t, err, ThrottlePair.Delay(ThrottlePair.Free+4))
	e.clk.Advance(ThrottlePair.Delay(ThrottlePair.Free + 4))
	if _, err := e.signIn("ada", "secret", ip); err != nil {
		t.Fatalf("right password after the wait: %v", err)
	}
	// Success cleared the pair: the next typo is not delayed.
	_, err = e.signIn("ada", "typo", ip)
	wantFailed(t, err)
}

func TestSignInFromManyAddressesSlowsTheAccountWithoutLockingIt(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	// The owner's browser signed in before the attack: it is known.
	in, err := e.signIn("ada", "secret", "192.0.2.10")
	if err != nil {
		t.Fatal(err)
	}
	for i := range ThrottleAccount.Free {
		_, err := e.signIn("ada", "wrong", fmt.Sprintf("198.51.100.%d", i+1))
		wantFailed(t, err)
	}
	// Any unknown browser, from any address, now waits: 1 s, then 2 s...
	_, err = e.signIn("ada", "secret", "198.18.0.1")
	wantThrottled(t, err, time.Second)
	e.clk.Advance(time.Second)
	_, err = e.signIn("ada", "wrong", "198.51.100.200")
	wantFailed(t, err)
	_, err = e.signIn("ada", "secret", "198.18.0.1")
	wantThrottled(t, err, 2*time.Second)
	// The owner's known browser is not slowed by the account's counter,
	// wherever it is.
	if _, err := e.a.SignIn(context.Background(), Attempt{Login: "ada", Password: "secret", IP: "198.18.0.1", Device: in.Device}); err != nil {
		t.Fatalf("known browser during the attack: %v", err)
	}
	// Waiting lets an unknown browser through: the account is slowed, not
	// locked.
	e.clk.Advance(2 * time.Second)
	if _, err := e.signIn("ada", "secret", "198.18.0.1"); err != nil {
		t.Fatalf("owner after the wait: %v", err)
	}
}

func TestSignInFailuresFromOneAddressForManyAccountsDoNotLockOutOthers(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	in, err := e.signIn("ada", "secret", "192.0.2.10")
	if err != nil {
		t.Fatal(err)
	}
	const shared = "203.0.113.1" // e.g. an office's NAT
	fail := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			_, err := e.signIn(fmt.Sprintf("user%d", i), "wrong", shared)
			wantFailed(t, err)
		}
	}
	fail(0, 25)
	if _, err := e.signIn("ada", "secret", "192.0.2.99"); err != nil {
		t.Fatalf("owner from another address after 25 failures: %v", err)
	}
	if _, err := e.signIn("ada", "secret", shared); err != nil {
		t.Fatalf("owner behind the same address after 25 failures: %v", err)
	}
	// Past the address's allowance, unknown browsers behind it wait a
	// little (never more than the cap); known ones do not.
	fail(25, int(ThrottleAddress.Free))
	_, err = e.signIn("ada", "secret", shared)
	wait := wantThrottled(t, err, 0)
	if wait > ThrottleAddress.Max {
		t.Fatalf("wait %v past the address's cap %v", wait, ThrottleAddress.Max)
	}
	if _, err := e.a.SignIn(context.Background(), Attempt{Login: "ada", Password: "secret", IP: shared, Device: in.Device}); err != nil {
		t.Fatalf("known browser behind the address: %v", err)
	}
	if _, err := e.signIn("ada", "secret", "192.0.2.99"); err != nil {
		t.Fatalf("owner from another address: %v", err)
	}
	e.clk.Advance(wait)
	if _, err := e.signIn("ada", "secret", shared); err != nil {
		t.Fatalf("owner behind the address after the wait: %v", err)
	}
}

func TestSignInThrottlesUnknownLoginsAlike(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	var waits []time.Duration
	for _, login := range []string{"ada", "ghost"} {
		for range ThrottlePair.Free {
			_, err := e.signIn(login, "wrong", "203.0.113.9")
			wantFailed(t, err)
		}
		_, err := e.signIn(login, "wrong", "203.0.113.9")
		waits = append(waits, wantThrottled(t, err, 0))
	}
	if waits[0] != waits[1] {
		t.Fatalf("waits %v differ between a login that exists and one that does not", waits)
	}
	if got := e.checks.Load(); got != 2*ThrottlePair.Free {
		t.Fatalf("checks = %d, want %d (unknown logins are checked against a dummy hash)", got, 2*ThrottlePair.Free)
	}
}

func TestSignInSuccessClearsThePairAndTakesBackOnlyItsOwnCount(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	for range 3 {
		_, err := e.signIn("ada", "wrong", "203.0.113.1")
		wantFailed(t, err)
	}
	for range 2 {
		_, err := e.signIn("ADA ", "wrong", "203.0.113.2")
		wantFailed(t, err)
	}
	a, b := untrustedKeys("ada", "203.0.113.1"), untrustedKeys("ada", "203.0.113.2")
	if got := e.counters(t, a[0], b[0], a[1], a[2], b[2]); fmt.Sprint(got) != "[3 2 5 3 2]" {
		t.Fatalf("counters (pair A, pair B, account, address A, address B) = %v", got)
	}
	if _, err := e.signIn("ada", "secret", "203.0.113.1"); err != nil {
		t.Fatal(err)
	}
	if got := e.counters(t, a[0], b[0], a[1], a[2], b[2]); fmt.Sprint(got) != "[0 2 5 3 2]" {
		t.Fatalf("after success: counters = %v, want [0 2 5 3 2]", got)
	}
}

func TestSignInCountersForgetOneAttemptPerLeak(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	const ip = "203.0.113.1"
	for range ThrottlePair.Free {
		_, err := e.signIn("ada", "wrong", ip)
		wantFailed(t, err)
	}
	// One leak later, one attempt is forgotten: one more is let through
	// at once, and the wait comes back after it.
	e.clk.Advance(ThrottlePair.Leak)
	_, err := e.signIn("ada", "wrong", ip)
	wantFailed(t, err)
	_, err = e.signIn("ada", "wrong", ip)
	wantThrottled(t, err, ThrottlePair.Base)
	// Once all have leaked away, the allowance is whole again.
	e.clk.Advance(time.Duration(ThrottlePair.Free) * ThrottlePair.Leak)
	for range ThrottlePair.Free {
		_, err := e.signIn("ada", "wrong", ip)
		wantFailed(t, err)
	}
	_, err = e.signIn("ada", "wrong", ip)
	wantThrottled(t, err, ThrottlePair.Base)
	// Old counters are removed from the store.
	e.clk.Advance(ThrottlePruneAge + throttlePruneInterval)
	_, err = e.signIn("nobody", "wrong", "192.0.2.1")
	wantFailed(t, err)
	if got := e.counters(t, untrustedKeys("ada", ip)...); fmt.Sprint(got) != "[0 0 0]" {
		t.Fatalf("old counters kept: %v", got)
	}
}

func TestSignInOneAddressAloneNeverSlowsTheAccountsOwnerElsewhere(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	// A fast check stands in for bcrypt: the attacker makes every
	// attempt the throttle allows for six hours.
	e.a.checkPassword = func(_, pw string) bool { return pw == "secret" }
	start := e.clk.Now()
	attempts := 0
	for e.clk.Now().Sub(start) < 6*time.Hour {
		_, err := e.signIn("ada", "wrong", "203.0.113.66")
		var te *ThrottledError
		if errors.As(err, &te) {
			e.clk.Advance(te.RetryAfter)
			continue
		}
		wantFailed(t, err)
		attempts++
		// Right after each of the attacker's attempts, the owner, from
		// another address and an unknown browser, is not made to wait.
		if _, err := e.signIn("ada", "secret", "192.0.2.10"); err != nil {
			t.Fatalf("after %d attempts in %v: owner elsewhere: %v", attempts, e.clk.Now().Sub(start), err)
		}
	}
	t.Logf("one address made %d attempts in six hours", attempts)
	// Six hours of one address's attempts: 5 free, then about 4 an hour.
	if attempts > 40 {
		t.Fatalf("one address made %d attempts in six hours", attempts)
	}
}

func TestSignInFromAKnownBrowserIsCountedOnThatBrowserOnly(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	in, err := e.signIn("ada", "secret", "192.0.2.10")
	if err != nil {
		t.Fatal(err)
	}
	device := func(pw string) error {
		_, err := e.a.SignIn(context.Background(), Attempt{Login: "ada", Password: pw, IP: "203.0.113.1", Device: in.Device})
		return err
	}
	// A stolen device cookie buys the thief no more than a pair's
	// allowance.
	for range ThrottlePair.Free {
		wantFailed(t, device("wrong"))
	}
	wantThrottled(t, device("wrong"), ThrottlePair.Base)
	if got := e.counters(t, untrustedKeys("ada", "203.0.113.1")...); fmt.Sprint(got) != "[0 0 0]" {
		t.Fatalf("a known browser's failures were counted on the account or address: %v", got)
	}
	// Another browser of the same address is not affected.
	if _, err := e.signIn("ada", "secret", "203.0.113.1"); err != nil {
		t.Fatal(err)
	}
}

func TestDeviceCookieIsBoundToTheAccountAndTheSecret(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	in, err := e.signIn("ada", "secret", "192.0.2.10")
	if err != nil {
		t.Fatal(err)
	}
	id, ok := e.a.knownDevice(in.Device, e.uid)
	if !ok {
		t.Fatalf("device cookie %q not known for its account", in.Device)
	}
	// Signing in again from that browser keeps its id.
	again, err := e.a.SignIn(context.Background(), Attempt{Login: "ada", Password: "secret", IP: "192.0.2.10", Device: in.Device})
	if err != nil || again.Device != in.Device {
		t.Fatalf("renewed device cookie = %q, %v; want %q", again.Device, err, in.Device)
	}
	other := &SessionAuth{Nonces: NewNonces([]byte("another secret of 32 bytes......"))}
	flipped := []byte(in.Device)
	flipped[len(flipped)-1] ^= 1
	for name, bad := range map[string]func() bool{
		"another account": func() bool { _, ok := e.a.knownDevice(in.Device, e.uid+1); return ok },
		"another secret":  func() bool { _, ok := other.knownDevice(in.Device, e.uid); return ok },
		"altered":         func() bool { _, ok := e.a.knownDevice(string(flipped), e.uid); return ok },
		"id only":         func() bool { _, ok := e.a.knownDevice(id, e.uid); return ok },
		"empty":           func() bool { _, ok := e.a.knownDevice("", e.uid); return ok },
	} {
		if bad() {
			t.Errorf("%s: device cookie accepted", name)
		}
	}
}

func TestSignInThrottleIsSharedByNodesOnOneDatabase(t *testing.T) {
	t.Parallel()
	dbs := storetest.OpenN(t, 2)
	nodes := []*sessionEnv{newSessionEnvOn(t, dbs[0]), newSessionEnvOn(t, dbs[1])}
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			_, err := nodes[i%2].signIn("ada", "wrong", "203.0.113.77")
			if !errors.Is(err, ErrLoginFailed) && !errors.Is(err, ErrLoginThrottled) {
				t.Errorf("attempt %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if got := nodes[0].checks.Load() + nodes[1].checks.Load(); got != ThrottlePair.Free {
		t.Fatalf("two nodes checked %d passwords, want %d in all", got, ThrottlePair.Free)
	}
	_, err := nodes[1].signIn("ada", "secret", "203.0.113.77")
	wantThrottled(t, err, ThrottlePair.Base)
	if _, err := nodes[0].signIn("ada", "secret", "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
}

func TestThrottleKeysHideLoginsAndGroupIPv6ByPrefix(t *testing.T) {
	t.Parallel()
	a := untrustedKeys("Ada ", "2001:db8:1:2:aaaa::1")
	b := untrustedKeys("ada", "2001:db8:1:2:bbbb::2")
	c := untrustedKeys("ada", "2001:db8:1:3::1")
	for i := range a {
		if a[i].Name != b[i].Name {
			t.Errorf("key %d differs within one /64 or by case: %q %q", i, a[i].Name, b[i].Name)
		}
	}
	if a[0].Name == c[0].Name || a[2].Name == c[2].Name {
		t.Errorf("another /64 shares the pair or address counter")
	}
	if v4, mapped := untrustedKeys("x", "192.0.2.1"), untrustedKeys("x", "::ffff:192.0.2.1"); v4[2].Name != mapped[2].Name {
		t.Errorf("an IPv4-mapped address is counted apart from its IPv4 address")
	}
	for _, k := range a {
		if len(k.Name) > 40 {
			t.Errorf("key %q is long", k.Name)
		}
	}
}

func TestBasicAuthThrottlesThePairOnly(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	u := &store.User{Login: "ed", Email: "ed@example.com", Nicename: "ed", Roles: []string{"editor"}}
	if err := db.InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	plain, hash, err := GenerateAppPassword()
	if err != nil {
		t.Fatal(err)
	}
	if err := db.InsertAppPassword(ctx, &store.AppPassword{UUID: "u1", UserID: u.ID, Name: "t", Hash: hash}); err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	b := &BasicAuth{Users: db, Apps: db, Now: clk.Now, Throttle: &Throttle{Counters: db, Now: clk.Now}}
	try := func(pw, addr string) (*User, error) {
		r := requestWith(basicHeader("ed", pw))
		r.RemoteAddr = addr + ":4242"
		return b.Authenticate(r)
	}
	wantCode := func(err error, status int, code string) *Error {
		t.Helper()
		var ae *Error
		if !errors.As(err, &ae) || ae.Status != status || ae.Code != code {
			t.Fatalf("err = %v, want %d %s", err, status, code)
		}
		return ae
	}
	for range ThrottlePair.Free {
		_, err := try("wrong", "203.0.113.1")
		wantCode(err, 401, "rest_authentication_failed")
	}
	// The pair waits, even with the right password.
	_, err = try(plain, "203.0.113.1")
	if ae := wantCode(err, 429, "rest_authentication_throttled"); ae.RetryAfter != ThrottlePair.Base || ae.RetryAfterSeconds() != 30 {
		t.Fatalf("RetryAfter = %v", ae.RetryAfter)
	}
	// The account's clients elsewhere are not affected, and neither the
	// account's nor the address's sign-in counters moved.
	if got, err := try(plain, "192.0.2.20"); err != nil || got == nil || got.ID() != u.ID {
		t.Fatalf("right password from another address: %v %v", got, err)
	}
	keys := untrustedKeys("ed", "203.0.113.1")
	if cur, _ := db.LoginCounters(ctx, names(keys)); cur[0].Failures != ThrottlePair.Free || cur[1].Failures != 0 || cur[2].Failures != 0 {
		t.Fatalf("counters = %+v", cur)
	}
	clk.Advance(ThrottlePair.Base)
	if _, err := try(plain, "203.0.113.1"); err != nil {
		t.Fatalf("after the wait: %v", err)
	}

	// The counter read with the user (store.UserAppPasswordsStore) and
	// the one read alone (an unknown login, an email) throttle alike.
	for _, login := range []string{"nobody", "ed@example.com"} {
		r := func(pw string) (*User, error) {
			req := requestWith(basicHeader(login, pw))
			req.RemoteAddr = "198.51.100.7:4242"
			return b.Authenticate(req)
		}
		for range ThrottlePair.Free {
			_, err := r("wrong")
			wantCode(err, 401, "rest_authentication_failed")
		}
		_, err := r(plain)
		wantCode(err, 429, "rest_authentication_throttled")
	}
}
