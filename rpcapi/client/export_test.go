package client

// Server returns the server's process id and socket path, for tests that
// check what Close leaves behind.
func Server(c *Client) (pid int, socket string) {
	rc := c.plugin.ReattachConfig()
	return rc.Pid, rc.Addr.String()
}
