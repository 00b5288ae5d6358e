package selfsigned

import (
	"testing"
	"time"
)

func TestBundleUsable(t *testing.T) {
	names := ServiceNames("tandem-webhook", "tandem-system")
	b, err := NewBundle(names, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Usable(names, time.Now()); err != nil {
		t.Errorf("a fresh bundle: %v", err)
	}
	if err := b.Usable(names, time.Now().Add(Lifetime-RenewBefore/2)); err == nil {
		t.Error("a bundle about to expire counts as usable")
	}
	if err := b.Usable(ServiceNames("other", "tandem-system"), time.Now()); err == nil {
		t.Error("a bundle for another service counts as usable")
	}
	if err := (Bundle{}).Usable(names, time.Now()); err == nil {
		t.Error("an empty bundle counts as usable")
	}
}
