package webhooks

import (
	"errors"
	"testing"
)

func TestDialControlRefusesBlockedAddresses(t *testing.T) {
	var g Guard
	for _, addr := range []string{"127.0.0.1:80", "[::ffff:127.0.0.1]:80", "[::1]:443", "169.254.169.254:80", "[fd00:ec2::254]:80", "10.0.0.1:8080", "[fe80::1%eth0]:80", "garbage"} {
		if err := g.control("tcp", addr, nil); !errors.Is(err, ErrBlockedTarget) {
			t.Errorf("control(%s) = %v, want ErrBlockedTarget", addr, err)
		}
	}
	for _, addr := range []string{"93.184.216.34:443", "[2606:4700:4700::1111]:443"} {
		if err := g.control("tcp", addr, nil); err != nil {
			t.Errorf("control(%s) = %v", addr, err)
		}
	}
	open := Guard{AllowPrivate: true}
	if err := open.control("tcp", "127.0.0.1:80", nil); err != nil {
		t.Errorf("with webhook_private_targets: %v", err)
	}
}
