package registry

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func TestDigestCache(t *testing.T) {
	host, requests := testRegistry(t)
	amd64 := v1.Platform{OS: "linux", Architecture: "amd64"}
	push(t, host+"/app:1", func(r name.Reference) error {
		return remote.Write(r, image(t, amd64, []string{"/v1"}, nil, ""))
	})
	c, err := NewDigestCache("linux/amd64", []string{host}, 2, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, cached, err := c.Resolve(ctx, host+"/app:1", authn.DefaultKeychain)
	if err != nil || !slices.Equal(got.Entrypoint, []string{"/v1"}) || cached {
		t.Fatalf("first lookup: %+v, cached %v, %v; want entrypoint /v1, not cached", got, cached, err)
	}

	// Warm: the ping and a HEAD for the tag's digest; the manifest and
	// config blob come from the cache.
	before := requests.Load()
	if _, cached, err := c.Resolve(ctx, host+"/app:1", authn.DefaultKeychain); err != nil || !cached {
		t.Fatalf("warm lookup: cached %v, %v; want cached", cached, err)
	}
	if n := requests.Load() - before; n != 2 {
		t.Errorf("a warm lookup of a tag made %d requests; want 2 (ping, HEAD)", n)
	}

	// The tag pushed again: the new digest is read, not the cached config.
	push(t, host+"/app:1", func(r name.Reference) error {
		return remote.Write(r, image(t, amd64, []string{"/v2"}, nil, ""))
	})
	if got, cached, err = c.Resolve(ctx, host+"/app:1", authn.DefaultKeychain); err != nil || !slices.Equal(got.Entrypoint, []string{"/v2"}) || cached {
		t.Errorf("after a new push of the tag: %+v, cached %v, %v; want entrypoint /v2, not cached", got, cached, err)
	}

	// A reference by digest that is cached needs no request at all.
	ref, _ := name.ParseReference(host+"/app:1", name.Insecure)
	desc, err := remote.Head(ref)
	if err != nil {
		t.Fatal(err)
	}
	before = requests.Load()
	if _, cached, err := c.Resolve(ctx, host+"/app@"+desc.Digest.String(), authn.DefaultKeychain); err != nil || !cached {
		t.Fatalf("cached digest: cached %v, %v; want cached", cached, err)
	}
	if n := requests.Load() - before; n != 0 {
		t.Errorf("a cached digest made %d requests; want none", n)
	}
	if c.Len() != 2 {
		t.Errorf("cache holds %d configs; want 2 (its bound)", c.Len())
	}
}

func TestDigestCacheTimeout(t *testing.T) {
	c, err := NewDigestCache("linux/amd64", nil, 1, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	// 192.0.2.1 (TEST-NET-1) never answers; the timeout must end the lookup.
	_, _, err = c.Resolve(context.Background(), "192.0.2.1/app:1", authn.DefaultKeychain)
	if err == nil {
		t.Fatal("a lookup past its timeout succeeded")
	}
	var timeout *TimeoutError
	if !errors.As(err, &timeout) || !strings.Contains(err.Error(), "192.0.2.1/app:1") || !strings.Contains(err.Error(), "--lookup-timeout 1ns") {
		t.Errorf("error %q; want one naming the image and --lookup-timeout 1ns", err)
	}
}
