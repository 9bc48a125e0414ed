package execprint

// Tools is what the printers need to know of the workspace's tools to
// show a call as it starts.
type Tools struct {
	// Shell is the shell commands run under.
	Shell string
	// Cwd is the workspace, to show patched paths absolute.
	Cwd string
	// MCPTool names the server and tool behind a tool name; ok is false
	// for tools that are not an MCP server's. Nil: none are.
	MCPTool func(name string) (server, tool string, ok bool)
}

func (t Tools) lookupMCP(name string) (server, tool string, ok bool) {
	if t.MCPTool == nil {
		return "", "", false
	}
	return t.MCPTool(name)
}
