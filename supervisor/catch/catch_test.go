package catch

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Caught delivers a forwarded signal once registered; a second caller gets
// its own channel, which sees what comes after it, not what came before.
func TestCaughtDeliversAndEachCallerHasItsOwn(t *testing.T) {
	Begin()
	first := Caught()
	if err := unix.Kill(unix.Getpid(), unix.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	expect(t, first, unix.SIGUSR1)
	second := Caught()
	if second == first {
		t.Fatal("the second caller got the first channel")
	}
	select {
	case sig := <-second:
		t.Fatalf("the second channel holds %v, which came before it", sig)
	default:
	}
	if err := unix.Kill(unix.Getpid(), unix.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	expect(t, second, unix.SIGUSR2)
}

func expect(t *testing.T, sigs <-chan os.Signal, want unix.Signal) {
	t.Helper()
	select {
	case got := <-sigs:
		if got != want {
			t.Errorf("caught %v, want %v", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%v was not caught", want)
	}
}
