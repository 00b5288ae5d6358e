package probe

import (
	"net"

	"golang.org/x/sys/unix"
)

// writeNoSigpipe writes with MSG_NOSIGNAL. tandem catches SIGPIPE to forward
// it, so a plain write to a socket that the peer reset would raise a SIGPIPE
// that tandem then forwards to CMD, killing it: a readiness probe must never
// do that.
func writeNoSigpipe(conn net.Conn, data []byte) error {
	tcp, ok := conn.(*net.TCPConn)
	if !ok {
		_, err := conn.Write(data)
		return err
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		return err
	}
	var writeErr error
	err = raw.Write(func(fd uintptr) bool {
		for len(data) > 0 {
			n, err := unix.SendmsgN(int(fd), data, nil, nil, unix.MSG_NOSIGNAL)
			if err == unix.EAGAIN {
				return false // wait until writable, within the deadline
			}
			if err != nil {
				writeErr = err
				return true
			}
			data = data[n:]
		}
		return true
	})
	if err != nil {
		return err
	}
	return writeErr
}
