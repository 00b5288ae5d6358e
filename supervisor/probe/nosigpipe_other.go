//go:build !linux

package probe

import "net"

func writeNoSigpipe(conn net.Conn, data []byte) error {
	_, err := conn.Write(data)
	return err
}
