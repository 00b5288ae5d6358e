//go:build !linux

package supervisor

import "net"

func writeNoSigpipe(conn net.Conn, data []byte) error {
	_, err := conn.Write(data)
	return err
}
